/**
 * rewritingClient around an HttpKubeClient against a real kube-apiserver with the internal CRDs: the caller
 * speaks kubevirt.io, the API server stores internal names (no proxy in between).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../lib/kubevirt/gvr.ts';
import { INTERNAL_VIRTUAL_MACHINE_INSTANCES } from '../../lib/kubevirt/internal-gvr.ts';
import { richVmiSpec, richVmSpec } from '../../lib/kubevirt/testing/fixtures.ts';
import { isNotFound } from '../../lib/kernel/errors/errors.ts';
import type { KubeClient, KubeObject, WatchEvent } from '../../lib/kernel/kube/index.ts';
import { testCluster, type TestCluster } from '../../testenv/cluster.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../lib/rename/index.ts';
import { IG, INT } from '../../lib/rename/testing/objects.ts';
import { rewritingClient } from '../../lib/rename/client/rewriting-client.ts';

let c: TestCluster;
let kv: KubeClient;
beforeAll(async () => {
  c = await testCluster('rewriter-client', { userAgent: 'kubevirt-ts/rename-itest' });
  kv = rewritingClient(c.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
});
afterAll(async () => {
  await c.close();
});

const vmi = (name: string, node: string): KubeObject & { spec: unknown } => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name, namespace: c.ns, labels: { 'kubevirt.io/vm': name, 'kubevirt.io/nodeName': node } },
  spec: richVmiSpec(),
});

describe('rewritingClient against kube-apiserver', () => {
  it('creates, gets, lists by kubevirt.io label, patches and deletes VMIs', async () => {
    const created = await kv.create(VIRTUAL_MACHINE_INSTANCES, vmi('c1', 'n1'));
    await kv.create(VIRTUAL_MACHINE_INSTANCES, vmi('c2', 'n2'));
    expect(created).toMatchObject({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance' });

    const stored = await c.direct.get(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'c1', { namespace: c.ns });
    expect(stored.apiVersion).toBe(`${IG}/v1`);
    expect(stored.metadata.labels).toEqual({ [`${INT}/vm`]: 'c1', [`${INT}/nodeName`]: 'n1' });

    const list = await kv.list(VIRTUAL_MACHINE_INSTANCES, {
      namespace: c.ns,
      labelSelector: 'kubevirt.io/nodeName=n2',
    });
    expect(list.kind).toBe('VirtualMachineInstanceList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['c2']);

    const patched = await kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      'c1',
      [{ op: 'replace', path: '/metadata/labels/kubevirt.io~1nodeName', value: 'n3' }],
      {
        namespace: c.ns,
        type: 'json',
      },
    );
    expect(patched.metadata.labels).toEqual({ 'kubevirt.io/vm': 'c1', 'kubevirt.io/nodeName': 'n3' });

    await kv.delete(VIRTUAL_MACHINE_INSTANCES, 'c1', { namespace: c.ns });
    const gone = await kv.get(VIRTUAL_MACHINE_INSTANCES, 'c1', { namespace: c.ns }).catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
    expect((gone as Error).message).toBe('virtualmachineinstances.kubevirt.io "c1" not found');
  });

  it('updates a VM status through /status', async () => {
    const vm = await kv.create<KubeObject & { status?: unknown }>(VIRTUAL_MACHINES, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm1', namespace: c.ns, labels: { 'kubevirt.io/vm': 'vm1' } },
      spec: richVmSpec(),
    } as KubeObject);
    const updated = await kv.update<KubeObject & { status?: unknown }>(
      VIRTUAL_MACHINES,
      { ...vm, status: { printableStatus: 'Stopped' } },
      { subresource: 'status' },
    );
    expect(updated.status).toMatchObject({ printableStatus: 'Stopped' });
    expect(updated.metadata.labels).toEqual({ 'kubevirt.io/vm': 'vm1' });
  });

  it('watches VMIs with events restored', async () => {
    const start = await kv.list(VIRTUAL_MACHINE_INSTANCES, { namespace: c.ns });
    const ac = new AbortController();
    const seen: WatchEvent[] = [];
    const watching = (async (): Promise<void> => {
      for await (const ev of kv.watch(
        VIRTUAL_MACHINE_INSTANCES,
        {
          namespace: c.ns,
          labelSelector: 'kubevirt.io/vm=w',
          resourceVersion: start.metadata.resourceVersion ?? '',
        },
        ac.signal,
      )) {
        seen.push(ev);
        if (ev.type === 'DELETED') return;
      }
    })();
    await kv.create(VIRTUAL_MACHINE_INSTANCES, vmi('w', 'n1'));
    await kv.delete(VIRTUAL_MACHINE_INSTANCES, 'w', { namespace: c.ns });
    await watching;
    ac.abort();
    const labelOf = (o: unknown): string | undefined => (o as KubeObject).metadata.labels?.['kubevirt.io/vm'];
    expect(seen.map((e) => [e.type, e.object.kind, labelOf(e.object)])).toEqual([
      ['ADDED', 'VirtualMachineInstance', 'w'],
      ['DELETED', 'VirtualMachineInstance', 'w'],
    ]);
  });
});
