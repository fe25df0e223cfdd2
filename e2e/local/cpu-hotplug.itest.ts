/**
 * CPU hotplug on the real node: a running VM (the agent guest, one socket of one core, room for two sockets)
 * whose template gets a second socket has it carried into its VMI by the VM controller (LiveUpdate, KubeVirt's
 * default), the handler has the launcher plug the vCPU into the running domain, status.currentCPUTopology says
 * two sockets, HotVCPUChange is gone, the VM asks for no restart, and the guest lists one more CPU under
 * /sys/devices/system/cpu. A socket fewer is not live: RestartRequired with KubeVirt's message.
 */
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, readSerial } from './virt.ts';

const s = virtSuite('cpu-hotplug', { handler: true });
const NAME = 'cpu-hp';
const CPUS_MARK = 'KVTS-CPUS=';
/** Prints the number of CPU directories the guest's kernel registered, after a marker. */
const COUNT_CPUS = `echo ${CPUS_MARK}$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)`;

const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns });
const getVm = (): Promise<VirtualMachine> =>
  s.clients.kv.get<VirtualMachine>(VIRTUAL_MACHINES, NAME, { namespace: s.ns });

async function hotplugVm(): Promise<VirtualMachine> {
  const vm = await agentVm(s.ns, NAME);
  const domain = vm.spec.template.spec.domain;
  domain.cpu = { ...domain.cpu, sockets: 1, cores: 1, threads: 1, maxSockets: 2 };
  domain.features = { ...domain.features, acpi: {} };
  vm.spec.runStrategy = 'Always';
  return vm;
}

async function setSockets(sockets: number): Promise<void> {
  await s.clients.kv.patch(
    VIRTUAL_MACHINES,
    NAME,
    { spec: { template: { spec: { domain: { cpu: { sockets } } } } } },
    { namespace: s.ns, type: 'merge' },
  );
}

describe('CPU hotplug on node local', () => {
  it('a socket added to a running VM reaches the guest; a socket taken away asks for a restart', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await hotplugVm());
    const vmi = await waitFor(
      async () => {
        const v = await getVmi().catch(() => undefined);
        return v?.status?.phase === 'Running' && v;
      },
      'the VMI Running',
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    // The api's mutating webhook records the boot topology (KubeVirt's setCurrentCPUTopologyStatus); this
    // suite runs no api, so the test writes what the webhook would have.
    if (vmi.status?.currentCPUTopology === undefined) {
      await s.clients.kv.patch(
        VIRTUAL_MACHINE_INSTANCES,
        NAME,
        { status: { currentCPUTopology: { sockets: 1, cores: 1, threads: 1 } } },
        { namespace: s.ns, type: 'merge' },
      );
    }
    const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
    const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
    const serial = {
      podUid: pods.items[0]?.metadata.uid ?? '',
      vmiUid: vmi.metadata.uid ?? '',
      timeoutMs: 10_000,
    };
    await readSerial({ ...serial, until: MARKER, timeoutMs: 120_000 }, s.c.dir);
    const cpus = async (): Promise<number | false> => {
      const text = await readSerial({ ...serial, send: COUNT_CPUS, until: /KVTS-CPUS=\d+/ }, s.c.dir).catch(
        () => '',
      );
      const m = /KVTS-CPUS=(\d+)/.exec(text);
      return m?.[1] === undefined ? false : Number(m[1]);
    };
    const before = await waitFor(cpus, 'the guest to count its CPUs', {
      timeoutMs: 60_000,
      intervalMs: 2000,
    });
    expect(before).toBe(1);

    await setSockets(2);
    const grown = await waitFor(
      async () => {
        const v = await getVmi();
        const hot = v.status?.conditions?.some((c) => c.type === 'HotVCPUChange');
        return v.spec.domain.cpu?.sockets === 2 && v.status?.currentCPUTopology?.sockets === 2 && !hot && v;
      },
      'the VMI to have two sockets applied',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(grown.status?.currentCPUTopology).toEqual({ sockets: 2, cores: 1, threads: 1 });
    expect(grown.status?.phase).toBe('Running');
    const after = await waitFor(async () => (await cpus()) === 2 && 2, 'the guest to see a second CPU', {
      timeoutMs: 60_000,
      intervalMs: 2000,
    });
    expect(after).toBe(before + 1);
    expect((await getVm()).status?.conditions?.some((c) => c.type === 'RestartRequired')).toBe(false);

    await setSockets(1);
    const restart = await waitFor(
      async () => (await getVm()).status?.conditions?.find((c) => c.type === 'RestartRequired'),
      'RestartRequired on the VM',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(restart).toMatchObject({
      status: 'True',
      message: 'Reduction of CPU socket count requires a restart',
    });
    expect((await getVmi()).spec.domain.cpu?.sockets).toBe(2);
  }, 600_000);
});
