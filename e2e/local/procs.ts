/**
 * Starting and stopping the node's processes by PID (testenv/process.ts: /proc is checked before any
 * signal), each detached with its log under the stack's logs dir, and waiting for each to be healthy.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { describeProcess, isRunning, startProcess, stopProcess } from '../testenv/process.ts';
import { waitUntilReady } from '../testenv/ready.ts';
import type { LocalProcess } from './state.ts';

export async function startLocal(p: LocalProcess): Promise<number> {
  const spec = p.spawn ?? { cmd: p.bin, args: p.args };
  p.pid = await startProcess({ bin: spec.cmd, args: spec.args, logFile: p.logFile, detached: true });
  return p.pid;
}

/**
 * Waits for probe. A spawn wrapper (the kubelet's unshare and shield script) runs first under the same PID: while
 * that PID lives and has not exec'd the expected binary yet, it is still starting, however loaded the host is.
 */
export async function waitHealthy(
  what: string,
  p: LocalProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const started = realClock.now();
  if (p.spawn !== undefined) {
    const wrapping = (): boolean => isRunning(p.pid) && !isRunning(p.pid, p.bin);
    while (wrapping() && realClock.now() - started < timeoutMs) await realClock.sleep(20);
    if (wrapping()) {
      const why = `pid ${p.pid} had not exec'd ${p.bin} within ${timeoutMs} ms (${describeProcess(p.pid)})`;
      throw new KvError('KV_ERR_TIMEOUT', `${what}: ${why}`);
    }
  }
  const left = Math.max(0, timeoutMs - (realClock.now() - started));
  await waitUntilReady(probe, { what, pid: p.pid, bin: p.bin, logFile: p.logFile, timeoutMs: left });
}

export function running(p: LocalProcess | undefined): boolean {
  return p !== undefined && isRunning(p.pid, p.bin);
}

export async function stopLocal(p: LocalProcess | undefined, graceMs = 10_000): Promise<void> {
  if (p === undefined || p.pid === 0) return;
  await stopProcess(p.pid, p.bin, { graceMs });
  p.pid = 0;
}
