// The lookup's calls: the lists by kubevirt.io names (one item for the workloads), the placement probes created
// with dryRun straight to the API server, and a refused probe answered with its message.
import { describe, expect, it } from '@jest/globals';
import { StatusError, newStatus } from '../../kernel/errors/errors.ts';
import type {
  GroupVersionResource,
  KubeObject,
  ListOptions,
  ObjectList,
  WriteOptions,
} from '../../kernel/kube/index.ts';
import { placementProbe } from '../validation/index.ts';
import { clusterKubeVirtLookup } from './kubevirt-lookup.ts';

interface Fake {
  readonly calls: string[];
  readonly lookup: ReturnType<typeof clusterKubeVirtLookup>;
}

function fake(items: Readonly<Record<string, number>>, refusal?: string): Fake {
  const calls: string[] = [];
  const list = <T extends KubeObject>(
    gvr: GroupVersionResource,
    o: ListOptions = {},
  ): Promise<ObjectList<T>> => {
    calls.push(`list ${gvr.group}/${gvr.resource} ${JSON.stringify(o)}`);
    const n = items[gvr.resource] ?? 0;
    const made = Array.from({ length: n }, (_, i) => ({ metadata: { name: `o${i}` } }) as T);
    return Promise.resolve({ metadata: {}, items: made });
  };
  const create = <T extends KubeObject>(
    gvr: GroupVersionResource,
    obj: T,
    o: WriteOptions = {},
  ): Promise<T> => {
    calls.push(`create ${gvr.group}/${gvr.resource} ${JSON.stringify(o)}`);
    return refusal === undefined
      ? Promise.resolve(obj)
      : Promise.reject(new StatusError(newStatus(422, refusal)));
  };
  return { calls, lookup: clusterKubeVirtLookup({ client: { list }, direct: { create } }) };
}

describe('clusterKubeVirtLookup', () => {
  it('lists the KubeVirt CRs of a namespace or of the cluster', async () => {
    const f = fake({ kubevirts: 2 });
    expect(await f.lookup.kubevirts('d8-virtualization')).toHaveLength(2);
    expect(await f.lookup.kubevirts()).toHaveLength(2);
    expect(f.calls).toEqual([
      'list kubevirt.io/kubevirts {"namespace":"d8-virtualization"}',
      'list kubevirt.io/kubevirts {}',
    ]);
  });

  it.each([
    ['none', {}, false, false],
    ['a VMI', { virtualmachineinstances: 1 }, true, false],
    ['a VM', { virtualmachines: 1 }, false, true],
  ])('asks for one VMI and one VM in the cluster: %s', async (_name, items, vmi, vm) => {
    const f = fake(items);
    expect([await f.lookup.anyVmi(), await f.lookup.anyVm()]).toEqual([vmi, vm]);
    expect(f.calls).toEqual([
      'list kubevirt.io/virtualmachineinstances {"limit":1}',
      'list kubevirt.io/virtualmachines {"limit":1}',
    ]);
  });

  it('creates a placement probe with dryRun in the namespace, and answers a refusal with its message', async () => {
    const probe = placementProbe({ component: 'workloads', nodePlacement: { nodeSelector: { a: 'b' } } });
    const accepted = fake({});
    expect(await accepted.lookup.dryRunCreate('ns1', probe)).toBeUndefined();
    expect(accepted.calls).toEqual(['create apps/daemonsets {"namespace":"ns1","dryRun":true}']);
    const refused = fake({}, 'DaemonSet.apps "placement-validation-webhook" is invalid');
    expect(await refused.lookup.dryRunCreate('ns1', probe)).toBe(
      'DaemonSet.apps "placement-validation-webhook" is invalid',
    );
  });
});
