import { describe, expect, it } from '@jest/globals';
import { isNotFound, newStatus, StatusError } from '../../kernel/errors/errors.ts';
import type {
  GroupVersionResource,
  KubeClient,
  KubeObject,
  RawRequest,
  WatchEvent,
} from '../../kernel/kube/types.ts';
import {
  IG,
  INT,
  internalVmi,
  internalVmiList,
  originalVmi,
  originalVmiList,
} from '../testing/objects.ts';
import { KUBEVIRT } from '../testing/synthetic-rules.ts';
import { rewritingClient } from './rewriting-client.ts';

const VMIS: GroupVersionResource = {
  group: 'kubevirt.io',
  version: 'v1',
  resource: 'virtualmachineinstances',
  kind: 'VirtualMachineInstance',
  namespaced: true,
};
const INTERNAL_VMIS: GroupVersionResource = {
  group: IG,
  version: 'v1',
  resource: 'internalvirtualizationvirtualmachineinstances',
  kind: 'InternalVirtualizationVirtualMachineInstance',
  namespaced: true,
};
const LEASES: GroupVersionResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
};

interface Recorded {
  op: string;
  gvr?: GroupVersionResource;
  args: unknown[];
}

/** Records every call; answers with `reply` (or throws it when it is an Error). */
function fakeClient(
  reply: (op: string) => unknown,
  events: WatchEvent[] = [],
): { client: KubeClient; calls: Recorded[] } {
  const calls: Recorded[] = [];
  const answer = (op: string, gvr: GroupVersionResource | undefined, args: unknown[]): Promise<never> => {
    calls.push({ op, ...(gvr && { gvr }), args });
    const r = reply(op);
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r as never);
  };
  const client: KubeClient = {
    get: (gvr, ...args) => answer('get', gvr, args),
    list: (gvr, ...args) => answer('list', gvr, args),
    create: (gvr, ...args) => answer('create', gvr, args),
    update: (gvr, ...args) => answer('update', gvr, args),
    patch: (gvr, ...args) => answer('patch', gvr, args),
    delete: (gvr, ...args) => answer('delete', gvr, args),
    request: (req: RawRequest) => answer('request', undefined, [req]),
    watch: <T extends KubeObject>(
      gvr: GroupVersionResource,
      ...args: unknown[]
    ): AsyncIterable<WatchEvent<T>> => {
      calls.push({ op: 'watch', gvr, args });
      return (async function* (): AsyncGenerator<WatchEvent<T>> {
        for (const ev of events) yield await Promise.resolve(ev as WatchEvent<T>);
      })();
    },
  };
  return { client, calls };
}

const vmi = (name: string): KubeObject => originalVmi({ name });

describe('rewritingClient', () => {
  it('get: renamed resource, restored object', async () => {
    const { client, calls } = fakeClient(() => internalVmi({ name: 'a' }));
    const got = await rewritingClient(client, KUBEVIRT).get(VMIS, 'a', { namespace: 'ns' });
    expect(calls).toEqual([{ op: 'get', gvr: INTERNAL_VMIS, args: ['a', { namespace: 'ns' }] }]);
    expect(got).toEqual(originalVmi({ name: 'a' }));
  });

  it("get: an object of an original kind is a 404 in the API server's words", async () => {
    const { client } = fakeClient(() => originalVmi({ name: 'real' }));
    const err = await rewritingClient(client, KUBEVIRT)
      .get(VMIS, 'real', { namespace: 'ns' })
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe('virtualmachineinstances.kubevirt.io "real" not found');
  });

  it('list: renamed selectors, restored items', async () => {
    const { client, calls } = fakeClient(() => internalVmiList([internalVmi({ name: 'a' })]));
    const list = await rewritingClient(client, KUBEVIRT).list(VMIS, {
      namespace: 'ns',
      labelSelector: 'kubevirt.io/vm=a',
      fieldSelector: 'metadata.name=a',
      limit: 10,
    });
    expect(calls[0]?.args).toEqual([
      { namespace: 'ns', labelSelector: `${INT}/vm=a`, fieldSelector: 'metadata.name=a', limit: 10 },
    ]);
    expect(list).toEqual(originalVmiList([originalVmi({ name: 'a' })]));
  });

  it('create and update (status): renamed body, restored answer', async () => {
    const { client, calls } = fakeClient(() => internalVmi({ name: 'a' }));
    const c = rewritingClient(client, KUBEVIRT);
    expect(await c.create(VMIS, vmi('a'))).toEqual(originalVmi({ name: 'a' }));
    expect(await c.update(VMIS, vmi('a'), { subresource: 'status' })).toEqual(originalVmi({ name: 'a' }));
    expect(calls.map((x) => [x.op, x.gvr, x.args[0]])).toEqual([
      ['create', INTERNAL_VMIS, internalVmi({ name: 'a' })],
      ['update', INTERNAL_VMIS, internalVmi({ name: 'a' })],
    ]);
    expect(calls[1]?.args[1]).toEqual({ subresource: 'status' });
  });

  it.each([
    [
      'json',
      [{ op: 'replace', path: '/metadata/labels/kubevirt.io~1vm', value: 'b' }],
      [{ op: 'replace', path: `/metadata/labels/${INT}~1vm`, value: 'b' }],
    ],
    [
      'merge',
      { metadata: { labels: { 'kubevirt.io/vm': 'b' } } },
      { metadata: { labels: { [`${INT}/vm`]: 'b' } } },
    ],
  ] as const)('patch (%s): renamed patch', async (type, patch, renamed) => {
    const { client, calls } = fakeClient(() => internalVmi({ name: 'a' }));
    await rewritingClient(client, KUBEVIRT).patch(VMIS, 'a', patch, { namespace: 'ns', type });
    expect(calls[0]?.args).toEqual(['a', renamed, { namespace: 'ns', type }]);
  });

  it('delete: renamed resource; a Status error comes back with original names', async () => {
    const status = newStatus(404, `internalvirtualizationvirtualmachineinstances.${IG} "a" not found`, {
      details: { name: 'a', group: IG, kind: 'internalvirtualizationvirtualmachineinstances' },
    });
    const { client, calls } = fakeClient(() => new StatusError(status));
    const err = await rewritingClient(client, KUBEVIRT)
      .delete(VMIS, 'a', { namespace: 'ns' })
      .catch((e: unknown) => e);
    expect(calls[0]?.gvr).toEqual(INTERNAL_VMIS);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).status.details).toMatchObject({
      group: 'kubevirt.io',
      kind: 'virtualmachineinstances',
    });
  });

  it('watch: renamed selectors, restored events in order, hidden objects left out', async () => {
    const events: WatchEvent[] = [
      { type: 'ADDED', object: internalVmi({ name: 'a' }) },
      { type: 'ADDED', object: originalVmi({ name: 'real' }) },
      { type: 'MODIFIED', object: internalVmi({ name: 'a', extra: { status: { phase: 'Running' } } }) },
    ];
    const { client, calls } = fakeClient(() => undefined, events);
    const got: unknown[] = [];
    const ac = new AbortController();
    for await (const ev of rewritingClient(client, KUBEVIRT).watch(
      VMIS,
      { labelSelector: 'kubevirt.io/vm' },
      ac.signal,
    ))
      got.push(ev);
    expect(calls[0]?.args[0]).toEqual({ labelSelector: `${INT}/vm` });
    expect(got).toEqual([
      { type: 'ADDED', object: originalVmi({ name: 'a' }) },
      { type: 'MODIFIED', object: originalVmi({ name: 'a', extra: { status: { phase: 'Running' } } }) },
    ]);
  });

  it('request: renamed path and query, restored answer', async () => {
    const { client, calls } = fakeClient(() => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${IG}/v1`,
      resources: [],
    }));
    const out = await rewritingClient(client, KUBEVIRT).request({
      method: 'GET',
      path: '/apis/kubevirt.io/v1',
      query: { timeout: '5s' },
    });
    expect(calls[0]?.args[0]).toMatchObject({ path: `/apis/${IG}/v1`, query: { timeout: '5s' } });
    expect(out).toMatchObject({ groupVersion: 'kubevirt.io/v1' });
  });

  it('leaves resources without rules untouched', async () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', labels: { 'kubevirt.io': 'x' } },
    };
    const { client, calls } = fakeClient(() => lease);
    const got = await rewritingClient(client, KUBEVIRT).create(LEASES, lease, {
      namespace: 'ns',
    });
    expect(calls[0]?.gvr).toBe(LEASES);
    expect(calls[0]?.args[0]).toBe(lease);
    expect(got).toBe(lease);
  });
});
