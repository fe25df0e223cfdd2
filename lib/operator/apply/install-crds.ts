/**
 * Installs the internal CRDs idempotently (server-side apply: creates them or brings them up to date) and waits
 * until the API server serves them (Established). Tests and the local stack call it; several callers may run
 * it at once.
 */
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../kernel/kube/resources.ts';
import type { GroupVersionResource, PatchOptions } from '../../kernel/kube/types.ts';
import { buildInternalCrds, type CustomResourceDefinition } from '../generate/crds/build.ts';

export const CRD_FIELD_MANAGER = 'kubevirt-ts-crds';

export interface InstallCrdsOptions {
  clock?: Clock;
  /** How long to wait for every CRD to be Established; 60 s by default. */
  timeoutMs?: number;
  /** Poll interval while waiting; 100 ms by default. */
  pollMs?: number;
  crds?: readonly CustomResourceDefinition[];
  signal?: AbortSignal;
}

/** What the install asks of the API server (a KubeClient does it): apply a CRD, read one back. */
export interface CrdClient {
  patch(gvr: GroupVersionResource, name: string, patch: unknown, opts: PatchOptions): Promise<unknown>;
  get(gvr: GroupVersionResource, name: string): Promise<CustomResourceDefinition>;
}

function conditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return crd.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

async function waitEstablished(
  client: CrdClient,
  name: string,
  opts: Required<Omit<InstallCrdsOptions, 'crds' | 'signal'>> & { signal?: AbortSignal | undefined },
): Promise<void> {
  const deadline = opts.clock.now() + opts.timeoutMs;
  for (;;) {
    const crd = await client.get(CUSTOM_RESOURCE_DEFINITIONS, name);
    if (conditionTrue(crd, 'Established')) return;
    if (opts.clock.now() >= deadline) {
      throw new KvError('KV_ERR_TIMEOUT', `CRD ${name} is not Established after ${opts.timeoutMs} ms`);
    }
    await opts.clock.sleep(opts.pollMs, opts.signal);
  }
}

/** Applies the CRDs and resolves once all are Established; returns their names. */
export async function installCrds(client: CrdClient, opts: InstallCrdsOptions = {}): Promise<string[]> {
  const crds = opts.crds ?? buildInternalCrds();
  const wait = {
    clock: opts.clock ?? realClock,
    timeoutMs: opts.timeoutMs ?? 60_000,
    pollMs: opts.pollMs ?? 100,
    signal: opts.signal,
  };
  const names: string[] = [];
  for (const crd of crds) {
    const name = crd.metadata.name ?? '';
    await client.patch(CUSTOM_RESOURCE_DEFINITIONS, name, crd, {
      type: 'apply',
      fieldManager: CRD_FIELD_MANAGER,
      force: true,
    });
    names.push(name);
  }
  for (const name of names) await waitEstablished(client, name, wait);
  return names;
}
