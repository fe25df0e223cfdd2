/**
 * A hotplug that cannot attach ends with a reason (beyond KubeVirt v1.6.2, which leaves the volume AttachedToNode
 * and says nothing; KubeVirt #18734): a running VMI gets a hotpluggable containerDisk whose image the node does
 * not have (pull policy Never), then, in its place, a claim that never binds (a StorageClass no one provides).
 * Within 10 s of each request the volume is HotplugFailed with what the kubelet or the scheduler said, and the
 * VMI has a HotplugFailed warning for each. The guest keeps running.
 */
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  type Disk,
  type VirtualMachineInstance,
  type Volume,
  type VolumeStatus,
} from '../../lib/kubevirt/index.ts';
import type { PersistentVolumeClaim } from '../../lib/kubevirt/core/pvc.ts';
import { EVENTS, PERSISTENT_VOLUME_CLAIMS, type KubeObject } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm } from './virt.ts';

const s = virtSuite('hotplug-failures', { handler: true });
const NAME = 'hp-fail-vmi';

interface Event extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { name?: string };
}

const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns });

/**
 * Puts one hotplug volume and its disk in the running VMI's spec (in place of any the test added before) and
 * waits for its status to say HotplugFailed: within 10 s of the request.
 */
async function hotplugAndFail(
  base: VirtualMachineInstance,
  add: { volume: Volume; disk: Disk },
): Promise<VolumeStatus> {
  const asked = Date.now();
  await s.clients.kv.patch(
    VIRTUAL_MACHINE_INSTANCES,
    NAME,
    {
      spec: {
        volumes: [...(base.spec.volumes ?? []), add.volume],
        domain: { devices: { disks: [...(base.spec.domain.devices.disks ?? []), add.disk] } },
      },
    },
    { namespace: s.ns, type: 'merge' },
  );
  const failed = await waitFor(
    async () => {
      const v = (await getVmi()).status?.volumeStatus?.find((x) => x.name === add.volume.name);
      return v?.phase === 'HotplugFailed' && v;
    },
    `volume ${add.volume.name} HotplugFailed`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(Date.now() - asked).toBeLessThan(10_000);
  expect(failed.reason).toBe('AttachmentPodFailed');
  return failed;
}

describe('a hotplug that cannot attach', () => {
  it('ends within 10 s with a reason on the volume status and a warning, for a missing image and an unbound claim', async () => {
    const vm = await agentVm(s.ns);
    await s.clients.kv.create(VIRTUAL_MACHINE_INSTANCES, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: NAME, namespace: s.ns },
      spec: vm.spec.template.spec,
    });
    const vmi = await waitFor(
      async () => {
        const v = await getVmi();
        return v.status?.phase === 'Running' && v;
      },
      'the VMI Running',
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const claim: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'never-bound', namespace: s.ns },
      spec: {
        storageClassName: 'kvts-no-such-class',
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        resources: { requests: { storage: '1Gi' } },
      },
    };
    await s.clients.direct.create(PERSISTENT_VOLUME_CLAIMS, claim);

    // One attachment Pod holds every hotplugged volume, so the two are asked for one after the other.
    const missing = await hotplugAndFail(vmi, {
      volume: {
        name: 'missing',
        containerDisk: {
          image: 'localhost/kubevirt-ts-no-such-image:local',
          imagePullPolicy: 'Never',
          hotpluggable: true,
        },
      },
      disk: { name: 'missing', cdrom: { bus: 'scsi' } },
    });
    expect(missing.message).toMatch(/ErrImageNeverPull/);
    const unbound = await hotplugAndFail(vmi, {
      volume: { name: 'unbound', persistentVolumeClaim: { claimName: 'never-bound', hotpluggable: true } },
      disk: { name: 'unbound', disk: { bus: 'scsi' } },
    });
    expect(unbound.message).toMatch(/cannot be scheduled: .*PersistentVolumeClaim/);

    const warnings = await waitFor(
      async () => {
        const events = await s.clients.direct.list<Event>(EVENTS, { namespace: s.ns });
        const mine = events.items.filter(
          (e) => e.involvedObject?.name === NAME && e.type === 'Warning' && e.reason === 'HotplugFailed',
        );
        return mine.length >= 2 && mine;
      },
      'the HotplugFailed warnings',
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    const messages = warnings.map((e) => e.message ?? '');
    expect(messages.some((m) => m.includes('ErrImageNeverPull'))).toBe(true);
    expect(messages.some((m) => m.includes('cannot be scheduled'))).toBe(true);
    expect((await getVmi()).status?.phase).toBe('Running');
  });
});
