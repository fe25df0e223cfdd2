/**
 * Volume hotplug on the real node: a running VMI (the agent guest, which has virtio-scsi) gets a claim added to
 * its spec; the controller runs the attachment Pod, the kubelet binds the claim's PersistentVolume into it, the
 * handler bind-mounts the claim's disk.img into the launcher Pod's hotplug-disks dir (MountedToPod), the launcher
 * attaches it live, the status says Ready with its target, and the guest reads the disk's first bytes. Taking the
 * volume out of the spec detaches it, the handler unmounts it, and the guest no longer has the device.
 */
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  type VirtualMachineInstance,
  type VolumeStatus,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { readMountPoints } from '../../lib/kernel/host/mounts.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { HOTPLUG_DISKS_VOLUME, podVolumeOnNode } from '../../lib/rpc/index.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { claimWithDisk } from './testing/claims.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, kubeletPodsDir, readSerial } from './virt.ts';

const s = virtSuite('hotplug', { handler: true });
const NAME = 'hp-vmi';
const CLAIM = 'hp-claim';
const DISK_MARKER = 'KVTS-HOTPLUG-DISK';

async function agentVmi(): Promise<VirtualMachineInstance> {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: NAME, namespace: s.ns },
    spec: (await agentVm(s.ns)).spec.template.spec,
  };
}

const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns });

const hotplugStatus = (v: VirtualMachineInstance): VolumeStatus | undefined =>
  v.status?.volumeStatus?.find((x) => x.name === 'hp');

async function mountedTargets(): Promise<string[]> {
  return (await readMountPoints()).filter((p) => p.includes(`/${HOTPLUG_DISKS_VOLUME}/`));
}

describe('hotplug on node local', () => {
  it('a claim added to a running VMI is mounted, attached and read by the guest; removed, it goes', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINE_INSTANCES, await agentVmi());
    const vmi = await waitFor(
      async () => {
        const v = await getVmi();
        return v.status?.phase === 'Running' && v;
      },
      'the VMI Running',
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
    const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
    const podUid = pods.items[0]?.metadata.uid ?? '';
    const serial = { podUid, vmiUid: vmi.metadata.uid ?? '', timeoutMs: 10_000 };
    await readSerial({ ...serial, until: MARKER, timeoutMs: 120_000 }, s.c.dir);
    await claimWithDisk(s.clients.direct, s.ns, CLAIM, { marker: DISK_MARKER });

    // Hotplug: the volume and its disk on the SCSI bus, added to the VMI spec (what virtctl addvolume asks for).
    await s.clients.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      {
        spec: {
          volumes: [
            ...(vmi.spec.volumes ?? []),
            { name: 'hp', persistentVolumeClaim: { claimName: CLAIM, hotpluggable: true } },
          ],
          domain: {
            devices: {
              disks: [...(vmi.spec.domain.devices.disks ?? []), { name: 'hp', disk: { bus: 'scsi' } }],
            },
          },
        },
      },
      { namespace: s.ns, type: 'merge' },
    );
    const ready = await waitFor(
      async () => {
        const hp = hotplugStatus(await getVmi());
        return hp?.phase === 'Ready' && hp;
      },
      'the hotplug volume Ready',
      { timeoutMs: 180_000, intervalMs: 200 },
    );
    expect(ready).toMatchObject({ target: 'sda', reason: 'VolumeReady', hotplugVolume: {} });
    const dir = podVolumeOnNode(kubeletPodsDir(s.c.dir), podUid, HOTPLUG_DISKS_VOLUME);
    expect(await mountedTargets()).toContain(`${dir}/hp.img`);
    // The guest reads the disk's first bytes.
    const answer = await waitFor(
      () =>
        readSerial(
          { ...serial, send: 'dd if=/dev/sda bs=17 count=1 2>/dev/null; echo', until: DISK_MARKER },
          s.c.dir,
        ).catch(() => false as const),
      'the guest to read the hotplugged disk',
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(answer).toContain(DISK_MARKER);

    // Unplug: out of the spec, the disk leaves the domain, the mount goes, the guest loses the device.
    const now = await getVmi();
    await s.clients.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      {
        spec: {
          volumes: (now.spec.volumes ?? []).filter((v) => v.name !== 'hp'),
          domain: {
            devices: { disks: (now.spec.domain.devices.disks ?? []).filter((d) => d.name !== 'hp') },
          },
        },
      },
      { namespace: s.ns, type: 'merge' },
    );
    await waitFor(
      async () => !(await mountedTargets()).includes(`${dir}/hp.img`),
      'the hotplug mount to go',
      {
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    const gone = await waitFor(
      () =>
        readSerial(
          { ...serial, send: 'ls /dev/sda 2>&1 | tail -n1', until: /No such file|can't access/ },
          s.c.dir,
        ).catch(() => false as const),
      'the guest to lose the device',
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(gone).toMatch(/No such file|can't access/);
    await waitFor(
      async () => {
        const hp = hotplugStatus(await getVmi());
        return hp === undefined || hp.phase === 'UnMountedFromPod';
      },
      'the volume to leave the status',
      { timeoutMs: 120_000 },
    );
    expect((await getVmi()).status?.phase).toBe('Running');
  }, 900_000);
});
