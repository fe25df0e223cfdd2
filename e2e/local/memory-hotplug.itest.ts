/**
 * Memory hotplug on the real node: a running VM (the agent guest, 1Gi of guest memory, room up to 2Gi) whose
 * template asks for 128Mi more has it carried into its VMI by the VM controller (LiveUpdate, KubeVirt's
 * default; the memory request moved with it), the handler has the launcher resize the domain's virtio-mem
 * device, status.memory.guestRequested says 1152Mi, HotMemoryChange is gone, the VM asks for no restart, and
 * the guest's MemTotal in /proc/meminfo grows by about 128Mi (its virtio_mem driver plugs the blocks; the
 * kernel argument memhp_default_state=online has them onlined). More than maxGuest is not live:
 * RestartRequired with KubeVirt's message.
 */
import { describe, expect, it } from '@jest/globals';
import {
  parseQuantity,
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

const s = virtSuite('memory-hotplug', { handler: true });
const NAME = 'mem-hp';
const MEM_MARK = 'KVTS-MEM=';
/** Prints the guest kernel's MemTotal in kB, after a marker. */
const MEM_TOTAL = `echo ${MEM_MARK}$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)`;
const MiB = 1024 * 1024;

const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns });
const getVm = (): Promise<VirtualMachine> =>
  s.clients.kv.get<VirtualMachine>(VIRTUAL_MACHINES, NAME, { namespace: s.ns });

async function hotplugVm(): Promise<VirtualMachine> {
  const vm = await agentVm(s.ns, NAME);
  const spec = vm.spec.template.spec;
  // KubeVirt's memory hotplug needs x86_64 and at least 1Gi of guest memory in 2Mi blocks.
  spec.architecture = 'amd64';
  spec.domain.memory = { guest: '1Gi', maxGuest: '2Gi' };
  spec.domain.resources = { requests: { memory: '1Gi' } };
  const boot = spec.domain.firmware?.kernelBoot;
  if (boot === undefined) throw new Error('the agent VM boots no kernel');
  boot.kernelArgs = `${boot.kernelArgs ?? ''} memhp_default_state=online`.trim();
  vm.spec.runStrategy = 'Always';
  return vm;
}

async function setGuestMemory(guest: string): Promise<void> {
  await s.clients.kv.patch(
    VIRTUAL_MACHINES,
    NAME,
    { spec: { template: { spec: { domain: { memory: { guest } } } } } },
    { namespace: s.ns, type: 'merge' },
  );
}

/** Writes the boot memory the api would have, and answers how to reach the guest's serial console. */
async function startedGuest(
  vmi: VirtualMachineInstance,
): Promise<{ podUid: string; vmiUid: string; timeoutMs: number }> {
  // The api's mutating webhook records the boot memory (KubeVirt's setGuestMemoryStatus); this suite runs no
  // api, so the test writes what the webhook would have.
  if (vmi.status?.memory?.guestAtBoot === undefined) {
    await s.clients.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      { status: { memory: { guestAtBoot: '1Gi', guestCurrent: '1Gi', guestRequested: '1Gi' } } },
      { namespace: s.ns, type: 'merge' },
    );
  }
  const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
  const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
  return { podUid: pods.items[0]?.metadata.uid ?? '', vmiUid: vmi.metadata.uid ?? '', timeoutMs: 10_000 };
}

describe('memory hotplug on node local', () => {
  it('128Mi added to a running VM reach the guest; more than maxGuest asks for a restart', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await hotplugVm());
    const vmi = await waitFor(
      async () => {
        const v = await getVmi().catch(() => undefined);
        return v?.status?.phase === 'Running' && v;
      },
      'the VMI Running',
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const serial = await startedGuest(vmi);
    await readSerial({ ...serial, until: MARKER, timeoutMs: 120_000 }, s.c.dir);
    const memTotalKiB = async (): Promise<number | false> => {
      const text = await readSerial({ ...serial, send: MEM_TOTAL, until: /KVTS-MEM=\d+/ }, s.c.dir).catch(
        () => '',
      );
      const m = /KVTS-MEM=(\d+)/.exec(text);
      return m?.[1] === undefined ? false : Number(m[1]);
    };
    const before = await waitFor(memTotalKiB, 'the guest to report its MemTotal', {
      timeoutMs: 60_000,
      intervalMs: 2000,
    });
    expect(before).toBeLessThanOrEqual(1024 * 1024);

    await setGuestMemory('1152Mi');
    const grown = await waitFor(
      async () => {
        const v = await getVmi();
        const hot = v.status?.conditions?.some((c) => c.type === 'HotMemoryChange');
        return (
          v.spec.domain.memory?.guest === '1152Mi' &&
          v.status?.memory?.guestRequested === '1152Mi' &&
          !hot &&
          v
        );
      },
      'the VMI to have 1152Mi applied',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(grown.spec.domain.resources?.requests?.['memory']).toBe('1152Mi');
    expect(grown.status?.phase).toBe('Running');
    const current = await waitFor(
      async () => {
        const c = (await getVmi()).status?.memory?.guestCurrent;
        return c !== undefined && parseQuantity(c) === 1152 * MiB && c;
      },
      'status.memory.guestCurrent to say 1152Mi',
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    expect(current).toBe('1152Mi');
    const after = await waitFor(
      async () => {
        const kib = await memTotalKiB();
        return kib !== false && kib - before >= 120 * 1024 && kib;
      },
      'the guest to see about 128Mi more',
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(after - before).toBeLessThanOrEqual(128 * 1024);
    expect((await getVm()).status?.conditions?.some((c) => c.type === 'RestartRequired')).toBe(false);

    await setGuestMemory('3Gi');
    const restart = await waitFor(
      async () => (await getVm()).status?.conditions?.find((c) => c.type === 'RestartRequired'),
      'RestartRequired on the VM',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(restart).toMatchObject({
      status: 'True',
      message: 'memory hotplug not supported, Guest memory is greater than the configured maxGuest memory',
    });
    expect((await getVmi()).spec.domain.memory?.guest).toBe('1152Mi');
  }, 600_000);
});
