/**
 * Ten VMs created together all reach Running on the one node (TCG), through the product's own path: the
 * webhooks admit them, the elected controller makes their VMIs and launcher Pods, the kubelet starts the Pods,
 * the handler syncs the launchers. Deleting them leaves no VMI, Pod, pod directory, mount or QEMU process.
 */
import { describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES, type VirtualMachine } from '../../lib/kubevirt/index.ts';
import { FINALIZERS } from '../../lib/kubevirt/labels.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';

const s = scenario('e2e-fleet');
const VMS = 10;
const names = Array.from({ length: VMS }, (_, i) => `fleet-${i}`);

describe('a fleet of VMs', () => {
  it(`starts ${VMS} VMs created together, and deleting them leaves nothing behind`, async () => {
    await Promise.all(
      names.map(async (n) => s.clients.kv.create(VIRTUAL_MACHINES, await exampleVm(s.ns, n))),
    );
    // Admitted by the api's webhooks: the mutator gave each the controller's finalizer and a firmware UUID.
    const vm = await s.clients.kv.get<VirtualMachine>(VIRTUAL_MACHINES, names[0] ?? '', { namespace: s.ns });
    expect(vm.metadata.finalizers).toContain(FINALIZERS.VIRTUAL_MACHINE_CONTROLLER);
    expect(vm.spec.template.spec.domain.firmware?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const vmis = await Promise.all(names.map((n) => s.running(n, 600_000)));
    expect(new Set(vmis.map((v) => v.status?.nodeName))).toEqual(new Set(['local']));
    const pods = await Promise.all(vmis.map((v) => s.launcherPod(v.metadata.uid ?? '')));
    const podUids = pods.map((p) => p?.metadata.uid ?? '');
    expect(podUids.every((u) => u !== '')).toBe(true);

    await Promise.all(names.map((n) => s.clients.kv.delete(VIRTUAL_MACHINES, n, { namespace: s.ns })));
    await waitFor(
      async () =>
        (await s.clients.kv.list(VIRTUAL_MACHINE_INSTANCES, { namespace: s.ns })).items.length === 0 &&
        (await s.clients.kv.list(PODS, { namespace: s.ns })).items.length === 0,
      'no VMI and no Pod left',
      { timeoutMs: 300_000, intervalMs: 1000 },
    );
    const left = await waitFor(
      async () => {
        const all = (await Promise.all(names.map((n, i) => s.leftovers(podUids[i] ?? '', n)))).flat();
        return all.length === 0 ? all : false;
      },
      'nothing of the VMs left on the node',
      { timeoutMs: 120_000, intervalMs: 2000 },
    ).catch(async () => (await Promise.all(names.map((n, i) => s.leftovers(podUids[i] ?? '', n)))).flat());
    expect(left).toEqual([]);
  }, 1_200_000);
});
