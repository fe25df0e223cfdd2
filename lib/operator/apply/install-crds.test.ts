import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { GroupVersionResource, PatchOptions } from '../../kernel/kube/types.ts';
import type { CustomResourceDefinition } from '../generate/crds/build.ts';
import { CRD_FIELD_MANAGER, installCrds, type CrdClient } from './install-crds.ts';

interface PatchCall {
  resource: string;
  name: string;
  body: unknown;
  opts: PatchOptions;
}

/** Records applies; a CRD turns Established after `establishAfter` reads of it. */
function fakeClient(establishAfter: number): {
  client: CrdClient;
  patches: PatchCall[];
  reads: Map<string, number>;
} {
  const patches: PatchCall[] = [];
  const reads = new Map<string, number>();
  const client: CrdClient = {
    patch: (gvr: GroupVersionResource, name: string, body: unknown, opts: PatchOptions) => {
      patches.push({ resource: gvr.resource, name, body, opts });
      return Promise.resolve(body);
    },
    get: (_gvr: GroupVersionResource, name: string) => {
      const n = (reads.get(name) ?? 0) + 1;
      reads.set(name, n);
      const established = n > establishAfter;
      return Promise.resolve({
        metadata: { name },
        spec: {
          group: 'g',
          names: { kind: 'K', listKind: 'KL', plural: 'ks', singular: 'k' },
          scope: 'Namespaced',
          versions: [],
        },
        status: { conditions: [{ type: 'Established', status: established ? 'True' : 'False' }] },
      });
    },
  };
  return { client, patches, reads };
}

async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  const state = { settled: false };
  const done = p.finally(() => {
    state.settled = true;
  });
  while (!state.settled) {
    await new Promise((r) => setImmediate(r));
    clock.advance(100);
  }
  return done;
}

describe('installCrds', () => {
  it('applies every internal CRD with server-side apply, then waits until each is Established', async () => {
    const clock = new FakeClock();
    const { client, patches, reads } = fakeClient(2);
    const names = await drive(clock, installCrds(client, { clock }));
    expect(names).toEqual([
      'internalvirtualizationvirtualmachines.internal.virtualization.deckhouse.io',
      'internalvirtualizationvirtualmachineinstances.internal.virtualization.deckhouse.io',
      'internalvirtualizationkubevirts.internal.virtualization.deckhouse.io',
      'internalvirtualizationvirtualmachineinstancemigrations.internal.virtualization.deckhouse.io',
    ]);
    expect(patches.map((p) => [p.resource, p.name, p.opts])).toEqual(
      names.map((n) => [
        'customresourcedefinitions',
        n,
        { type: 'apply', fieldManager: CRD_FIELD_MANAGER, force: true },
      ]),
    );
    expect((patches[0]?.body as CustomResourceDefinition).spec.group).toBe(
      'internal.virtualization.deckhouse.io',
    );
    expect([...reads.values()]).toEqual([3, 3, 3, 3]);
  });

  it('gives up with KV_ERR_TIMEOUT when a CRD never becomes Established', async () => {
    const clock = new FakeClock();
    const { client } = fakeClient(Number.POSITIVE_INFINITY);
    const err = await drive(
      clock,
      installCrds(client, { clock, timeoutMs: 1_000 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_TIMEOUT');
    expect((err as KvError).message).toMatch(/is not Established after 1000 ms/);
  });
});
