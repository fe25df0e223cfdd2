/**
 * Waits, before a start, until the virtiofsd of each of the domain's filesystems listens on its socket: the
 * `virtiofs-<volume>` containers start beside the compute container, and QEMU fails the start on a socket
 * that is not there yet (KubeVirt's virt-handler configureVirtioFS fails its sync on such a socket and
 * retries the sync).
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { KvError } from '../../kernel/errors/errors.ts';
import type { DomainSpec } from '../converter/index.ts';

export interface SocketWait {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly exists?: (file: string) => boolean;
  readonly delay?: (ms: number) => Promise<unknown>;
}

const DEFAULT_WAIT: SocketWait = { timeoutMs: 30_000, intervalMs: 200 };

/** Resolves once every filesystem's socket exists; a KV_ERR_TIMEOUT error names the first one missing. */
export async function waitForVirtiofsSockets(domain: DomainSpec, o: SocketWait = DEFAULT_WAIT): Promise<void> {
  const exists = o.exists ?? existsSync;
  const delay = o.delay ?? sleep;
  const pending = (domain.devices.filesystems ?? []).filter((fs) => !exists(fs.socket));
  for (let waited = 0; pending.length > 0; waited += o.intervalMs) {
    const first = pending[0];
    if (first !== undefined && waited >= o.timeoutMs) {
      throw new KvError(
        'KV_ERR_TIMEOUT',
        `the virtiofsd of filesystem ${first.target} has not made its socket ${first.socket} within ` +
          `${String(o.timeoutMs / 1000)} s (container virtiofs-${first.target})`,
      );
    }
    await delay(o.intervalMs);
    for (let i = pending.length - 1; i >= 0; i--) {
      const fs = pending[i];
      if (fs !== undefined && exists(fs.socket)) pending.splice(i, 1);
    }
  }
}
