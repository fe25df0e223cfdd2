/**
 * A hotplugged containerDisk on the real node (the Deckhouse fork's patch 031: ISOs from its registry shown as
 * CD-ROMs): a running VMI (the agent guest, virtio-scsi and sr_mod) gets the local ISO image as a hotpluggable
 * containerDisk on a SCSI CD-ROM, as an addvolume on the VMI asks; the controller gives the attachment Pod an
 * image volume of it, the handler finds the image on the node and bind-mounts its one disk file read-only onto
 * `iso.img` in the launcher Pod's hotplug-disks dir (MountedToPod), the launcher attaches it live, the status
 * says Ready, and the guest reads the ISO's volume id off the new CD-ROM. Taking the volume out of the spec
 * detaches it, the handler unmounts it, and the guest no longer has the device.
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
import { IMAGES } from './layout.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, kubeletPodsDir, readSerial } from './virt.ts';

const s = virtSuite('hotplug-image', { handler: true });
const NAME = 'hp-iso-vmi';
/** The volume id build-small.sh gives the ISO (bytes 40–47 of the primary volume descriptor at 32 KiB). */
const VOLUME_ID = 'KVTSISO1';

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

const isoStatus = (v: VirtualMachineInstance): VolumeStatus | undefined =>
  v.status?.volumeStatus?.find((x) => x.name === 'iso');

async function mountedTargets(): Promise<string[]> {
  return (await readMountPoints()).filter((p) => p.includes(`/${HOTPLUG_DISKS_VOLUME}/`));
}

describe('hotplugged containerDisk on node local', () => {
  it('an ISO image added to a running VMI becomes a CD-ROM the guest reads; removed, it goes', async () => {
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

    // Hotplug: the image as a hotpluggable containerDisk on a SCSI CD-ROM (what addvolume on the VMI writes).
    await s.clients.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      {
        spec: {
          volumes: [
            ...(vmi.spec.volumes ?? []),
            {
              name: 'iso',
              containerDisk: { image: IMAGES.guestIso, imagePullPolicy: 'Never', hotpluggable: true },
            },
          ],
          domain: {
            devices: {
              disks: [...(vmi.spec.domain.devices.disks ?? []), { name: 'iso', cdrom: { bus: 'scsi' } }],
            },
          },
        },
      },
      { namespace: s.ns, type: 'merge' },
    );
    const ready = await waitFor(
      async () => {
        const st = isoStatus(await getVmi());
        return st?.phase === 'Ready' && st;
      },
      'the hotplugged image Ready',
      { timeoutMs: 180_000, intervalMs: 200 },
    );
    expect(ready).toMatchObject({ target: 'sda', hotplugVolume: {}, containerDiskVolume: {} });
    expect(ready.persistentVolumeClaimInfo).toBeUndefined();
    const dir = podVolumeOnNode(kubeletPodsDir(s.c.dir), podUid, HOTPLUG_DISKS_VOLUME);
    expect(await mountedTargets()).toContain(`${dir}/iso.img`);

    // The guest sees a new CD-ROM and reads the ISO's volume id off it.
    const answer = await waitFor(
      () =>
        readSerial(
          { ...serial, send: 'dd if=/dev/sr0 bs=1 skip=32808 count=8 2>/dev/null; echo', until: VOLUME_ID },
          s.c.dir,
        ).catch(() => false as const),
      'the guest to read the hotplugged CD-ROM',
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(answer).toContain(VOLUME_ID);

    // Unplug: out of the spec, the CD-ROM leaves the domain, the mount goes, the guest loses the device.
    const now = await getVmi();
    await s.clients.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      {
        spec: {
          volumes: (now.spec.volumes ?? []).filter((v) => v.name !== 'iso'),
          domain: {
            devices: { disks: (now.spec.domain.devices.disks ?? []).filter((d) => d.name !== 'iso') },
          },
        },
      },
      { namespace: s.ns, type: 'merge' },
    );
    await waitFor(async () => !(await mountedTargets()).includes(`${dir}/iso.img`), 'the image mount to go', {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    const gone = await waitFor(
      () =>
        readSerial(
          { ...serial, send: 'ls /dev/sr0 2>&1 | tail -n1', until: /No such file|can't access/ },
          s.c.dir,
        ).catch(() => false as const),
      'the guest to lose the CD-ROM',
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(gone).toMatch(/No such file|can't access/);
    await waitFor(async () => isoStatus(await getVmi()) === undefined, 'the volume to leave the status', {
      timeoutMs: 120_000,
    });
    expect((await getVmi()).status?.phase).toBe('Running');
  }, 900_000);
});
