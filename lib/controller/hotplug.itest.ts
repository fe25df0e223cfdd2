/**
 * Volume hotplug against a real kube-apiserver, through the rewriter rules: the VMI controller keeps
 * status.volumeStatus and runs the attachment Pods. No kube-controller-manager runs, so nothing binds claims:
 * the test writes status.phase=Bound on each claim itself (as the PV controller would). The test also plays
 * kubelet (binds and readies Pods) and virt-handler (moves the VMI to Running); no handler mounts anything,
 * so hotplug volumes stop at AttachedToNode.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/gvr.ts';
import type { VirtualMachineInstance, Volume, VolumeStatus } from '../kubevirt/index.ts';
import { PERSISTENT_VOLUME_CLAIMS } from '../kernel/kube/resources.ts';
import { EVENTS, PODS } from '../kernel/kube/index.ts';
import type { KubeObject, WatchEvent } from '../kernel/kube/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../kubevirt/core/pvc.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import {
  FakeKubelet,
  startControllerEnv,
  vmiWhere as vmiWhereIn,
  type ControllerEnv,
} from './testing/cluster.ts';

let env: ControllerEnv;
let kubelet: FakeKubelet;
const NODE = 'node-hp';
const NAME = 'hotplug';

beforeAll(async () => {
  env = await startControllerEnv('hotplug');
  kubelet = new FakeKubelet(env.kv, env.ns);
});
afterAll(async () => {
  await env.close();
});

async function createBoundClaim(name: string, volumeMode: 'Block' | 'Filesystem'): Promise<void> {
  const claim: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: env.ns },
    spec: { accessModes: ['ReadWriteOnce'], volumeMode, resources: { requests: { storage: '1Gi' } } },
  };
  await env.kv.create(PERSISTENT_VOLUME_CLAIMS, claim);
  await env.kv.patch(
    PERSISTENT_VOLUME_CLAIMS,
    name,
    { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } },
    { namespace: env.ns, subresource: 'status', type: 'merge' },
  );
}

const vmiWhere = (
  what: string,
  pred: (v: VirtualMachineInstance) => boolean,
): Promise<VirtualMachineInstance> => vmiWhereIn(env, NAME, what, pred);

const volumeStatus = (v: VirtualMachineInstance | undefined, name: string): VolumeStatus | undefined =>
  v?.status?.volumeStatus?.find((s) => s.name === name);

async function podsLabelled(selector: string): Promise<Pod[]> {
  return (await env.kv.list<Pod>(PODS, { namespace: env.ns, labelSelector: selector })).items;
}

const attachmentPods = (): Promise<Pod[]> => podsLabelled('kubevirt.io=hotplug-disk');

async function setVolumes(volumes: Volume[]): Promise<void> {
  const disks = volumes.map((v) => ({ name: v.name, disk: { bus: v.name === 'root' ? 'virtio' : 'scsi' } }));
  await env.kv.patch(
    VIRTUAL_MACHINE_INSTANCES,
    NAME,
    { spec: { volumes, domain: { devices: { disks } } } },
    { namespace: env.ns, type: 'merge' },
  );
}

/** As kubelet would: the attachment Pod runs and its container is ready. */
async function runAttachmentPod(pod: Pod): Promise<void> {
  await kubelet.bind(pod, NODE);
  await kubelet.ready(pod);
}

async function eventWith(reason: string, message: string): Promise<KubeObject> {
  return waitFor(async () => {
    const list = await env.kv.list<KubeObject & { reason?: string; message?: string }>(EVENTS, {
      namespace: env.ns,
    });
    return list.items.find((e) => e.reason === reason && e.message === message);
  }, `event ${reason}: ${message}`);
}

const ROOT: Volume = { name: 'root', persistentVolumeClaim: { claimName: 'root-disk' } };
const HP: Volume = { name: 'hp', persistentVolumeClaim: { claimName: 'hp-disk', hotpluggable: true } };

/** A VMI on a Block root claim, its launcher Pod bound and ready on NODE, moved to Running. */
async function runningVmi(): Promise<{ vmi: VirtualMachineInstance; launcher: Pod }> {
  await createBoundClaim('root-disk', 'Block');
  await env.kv.create(VIRTUAL_MACHINE_INSTANCES, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: NAME, namespace: env.ns },
    spec: {
      domain: {
        resources: { requests: { memory: '128Mi' } },
        devices: { disks: [{ name: 'root', disk: { bus: 'virtio' } }] },
      },
      volumes: [ROOT],
    },
  });
  const scheduling = await vmiWhere('Scheduling', (v) => v.status?.phase === 'Scheduling');
  const selector = `kubevirt.io/created-by=${scheduling.metadata.uid ?? ''}`;
  const first = await waitFor(async () => (await podsLabelled(selector))[0], 'launcher Pod');
  // The root claim is Block: the launcher Pod gets it as a device (rendered from the claim, before any status).
  expect(first.spec.containers[0]?.volumeDevices).toEqual([{ name: 'root', devicePath: '/dev/root' }]);
  await kubelet.bind(first, NODE);
  await kubelet.ready((await podsLabelled(selector))[0] ?? first);
  const scheduled = await vmiWhere('Scheduled', (v) => v.status?.phase === 'Scheduled');
  expect(volumeStatus(scheduled, 'root')).toEqual({
    name: 'root',
    target: '',
    persistentVolumeClaimInfo: {
      claimName: 'root-disk',
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Block',
      capacity: { storage: '1Gi' },
      requests: { storage: '1Gi' },
      filesystemOverhead: '0.055',
    },
  });
  await env.kv.patch(
    VIRTUAL_MACHINE_INSTANCES,
    NAME,
    { status: { phase: 'Running' } },
    { namespace: env.ns, type: 'merge' },
  );
  const vmi = await vmiWhere('Running', (v) => v.status?.phase === 'Running');
  const launcher = (await podsLabelled(selector))[0];
  if (launcher === undefined) throw new Error('launcher Pod gone');
  return { vmi, launcher };
}

describe('volume hotplug against kube-apiserver', () => {
  it('a hotplugged claim gets an attachment Pod on the VMI node; removed, it detaches and goes', async () => {
    const { launcher } = await runningVmi();

    // Added before its claim exists: Pending, and no attachment Pod.
    await setVolumes([ROOT, HP]);
    const pending = await vmiWhere('hp Pending', (v) => volumeStatus(v, 'hp')?.phase === 'Pending');
    expect(volumeStatus(pending, 'hp')).toMatchObject({
      reason: 'FailedPvcNotFound',
      message: 'PVC hp-disk not found',
    });
    expect(await attachmentPods()).toEqual([]);

    // The claim appears (bound by the test): one attachment Pod, pinned to the VMI's node.
    await createBoundClaim('hp-disk', 'Filesystem');
    const pod = await waitFor(async () => (await attachmentPods())[0], 'attachment Pod');
    expect(pod.metadata.name).toMatch(/^hp-volume-[a-z0-9]{5}$/);
    expect(pod.metadata.labels).toEqual({ 'kubevirt.io': 'hotplug-disk' });
    expect(pod.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: launcher.metadata.name,
        uid: launcher.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(pod.spec['affinity']).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }] },
          ],
        },
      },
    });
    expect(pod.spec['volumes']).toEqual([
      { name: 'hotplug-disks', emptyDir: {} },
      { name: 'hp', persistentVolumeClaim: { claimName: 'hp-disk' } },
    ]);
    expect(pod.spec.containers[0]?.volumeMounts).toEqual([
      { name: 'hotplug-disks', mountPath: '/path', mountPropagation: 'HostToContainer' },
      { name: 'hp', mountPath: '/path/hp' },
    ]);
    expect(pod.spec.containers[0]?.image).toBe(launcher.spec.containers[0]?.image);
    await eventWith('SuccessfulCreate', `Created attachment pod ${pod.metadata.name ?? ''}`);

    // kubelet runs it on the node: AttachedToNode, with the Pod's uid for the node to mount from.
    await runAttachmentPod(pod);
    const attached = await vmiWhere(
      'hp AttachedToNode with the Pod uid',
      (v) => volumeStatus(v, 'hp')?.hotplugVolume?.attachPodUID === pod.metadata.uid,
    );
    expect(volumeStatus(attached, 'hp')).toMatchObject({
      phase: 'AttachedToNode',
      reason: 'SuccessfulCreate',
      message: `Created hotplug attachment pod ${pod.metadata.name ?? ''}, for volume hp`,
      hotplugVolume: { attachPodName: pod.metadata.name },
      persistentVolumeClaimInfo: { claimName: 'hp-disk', volumeMode: 'Filesystem' },
    });
    expect(await attachmentPods()).toHaveLength(1);

    // Removed from the spec: the Pod is deleted, the volume shows Detaching, then its entry goes.
    const seen: WatchEvent<VirtualMachineInstance>[] = [];
    const ac = new AbortController();
    const watching = (async (): Promise<void> => {
      const opts = { namespace: env.ns, fieldSelector: `metadata.name=${NAME}` };
      for await (const ev of env.kv.watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, opts, ac.signal))
        seen.push(ev);
    })();
    await setVolumes([ROOT]);
    await waitFor(
      async () => ((await attachmentPods()).length === 0 ? true : undefined),
      'attachment Pod gone',
    );
    const detached = await vmiWhere('hp entry gone', (v) => volumeStatus(v, 'hp') === undefined);
    expect(detached.status?.volumeStatus?.map((s) => s.name)).toEqual(['root']);
    ac.abort();
    await watching;
    const phases = seen.flatMap((e) => {
      const phase = e.type === 'ERROR' ? undefined : volumeStatus(e.object, 'hp')?.phase;
      return phase === undefined ? [] : [phase];
    });
    expect(phases).toContain('Detaching');
    expect(phases.at(-1)).toBe('Detaching');
    await eventWith('SuccessfulDelete', `Deleted attachment pod ${pod.metadata.name ?? ''}`);
  });
});
