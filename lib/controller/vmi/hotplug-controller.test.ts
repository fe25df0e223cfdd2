import { beforeEach, describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VolumeStatus } from '../../kubevirt/index.ts';
import { harness, vmiController, type Harness } from '../testing/harness.ts';
import { forbidden } from '../../kernel/kube/testing/recording-client.ts';
import { pod, podReady, vm, vmi, withPhase, withPodPhase } from '../../kubevirt/testing/objects.ts';
import {
  attachReady,
  attachmentPod,
  block,
  bound,
  pvc,
  withHotplugVolume,
  withVolume,
  withVolumeStatus,
} from '../testing/storage-fixtures.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { VmiController } from './controller.ts';
import { podHandler, pvcHandler } from './handlers.ts';
import { launcherPodName } from './launcher-pod.ts';

const KEY = 'default/testvm';
let h: Harness;
let c: VmiController;

beforeEach(() => {
  h = harness();
  c = vmiController(h);
  h.vms.add(vm());
});

const run = (): Promise<unknown> => c.reconcile(KEY, h.ctx);
const body = (n: number): Record<string, unknown> => h.client.actions[n]?.body as Record<string, unknown>;
const events = (): string[] => h.recorder.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
const creates = (): string[] => h.client.log.filter((a) => a.startsWith('create'));

/** A Running VMI on node1 with its ready launcher Pod (the fixtures' default) in the cache. */
function runningVmi(...opts: ((v: VirtualMachineInstance) => void)[]): VirtualMachineInstance {
  const v = vmi(
    withPhase('Running', 'Scheduling', 'Scheduled'),
    (x) => {
      x.status = { ...x.status, nodeName: 'node1', activePods: { 'pod-uid-1': 'node1' } };
      x.metadata.labels = { 'kubevirt.io/nodeName': 'node1' };
    },
    ...opts,
  );
  h.vmis.add(v);
  h.pods.add(pod(podReady('node1')));
  return v;
}

const handler = (enqueued: string[] = []): ReturnType<typeof podHandler> =>
  podHandler(c, { vmis: h.vmis, pods: h.pods }, (k) => enqueued.push(k));

describe('VmiController: volume status written by someone else', () => {
  const forged = withVolumeStatus({
    name: 'hp',
    target: '',
    phase: 'Ready',
    hotplugVolume: { attachPodName: 'hp-volume-victim', attachPodUID: 'victim-attachment-uid' },
  });
  const patchedVolumes = (): VolumeStatus[] | undefined => {
    const last = h.client.actions.filter((a) => a.verb === 'patch').at(-1);
    return (last?.body as { status?: { volumeStatus?: VolumeStatus[] } } | undefined)?.status?.volumeStatus;
  };

  it('a new VMI with a Ready entry naming an attachment Pod of no Pod: the Pod and its uid go', async () => {
    h.vmis.add(vmi(withHotplugVolume('hp', 'hp'), forged));
    await run();
    expect(creates()).toEqual([`create pods default/${launcherPodName(vmi())}`]);
    const hp = patchedVolumes()?.find((s) => s.name === 'hp');
    expect(hp).toMatchObject({ name: 'hp', phase: 'Ready' });
    expect(hp?.hotplugVolume).toEqual({});
  });

  it('a running VMI: the entry takes the name and uid of its own attachment Pod once one holds it', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'), forged);
    h.pvcs.add(pvc('hp', bound));
    h.pods.add(attachmentPod('hp-volume-a', ['hp'], attachReady));
    await run();
    expect(patchedVolumes()?.find((s) => s.name === 'hp')?.hotplugVolume).toEqual({
      attachPodName: 'hp-volume-a',
      attachPodUID: 'uid-hp-volume-a',
    });
  });
});

describe('VmiController: attachment Pods', () => {
  it('a hotplug volume on a bound claim: one attachment Pod on the node, then the volume status', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    await run();
    expect(h.client.log).toEqual([
      'create pods default/hp-volume-gen1',
      'patch virtualmachineinstances default/testvm',
    ]);
    expect(body(0)).toMatchObject({
      metadata: {
        generateName: 'hp-volume-',
        labels: { 'kubevirt.io': 'hotplug-disk' },
        ownerReferences: [
          { kind: 'Pod', name: 'virt-launcher-testvm-abcde', uid: 'pod-uid-1', controller: true },
        ],
      },
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'kubernetes.io/hostname', values: ['node1'] }] },
              ],
            },
          },
        },
        volumes: [{ name: 'hotplug-disks' }, { name: 'hp', persistentVolumeClaim: { claimName: 'hp' } }],
      },
    });
    expect(body(1)).toMatchObject({
      status: { volumeStatus: [{ name: 'hp', target: '', phase: 'Bound', hotplugVolume: {} }] },
    });
    expect(events()).toEqual(['Normal SuccessfulCreate Created attachment pod hp-volume-gen1']);
  });

  it('never a second attachment Pod before the first is observed', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    await run();
    h.vmis.add(
      vmi(withPhase('Running'), withHotplugVolume('hp', 'hp'), (x) => (x.metadata.resourceVersion = '77')),
    );
    await run();
    expect(creates()).toHaveLength(1);
    handler().onAdd?.(attachmentPod('hp-volume-gen1', ['hp']));
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
  });

  it('the attachment Pod ready in the cache: AttachedToNode with its uid, announced', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    h.pods.add(attachmentPod('hp-volume-a', ['hp'], attachReady));
    await run();
    expect(h.client.log).toEqual(['patch virtualmachineinstances default/testvm']);
    expect(body(0)).toMatchObject({
      status: {
        volumeStatus: [
          {
            name: 'hp',
            phase: 'AttachedToNode',
            reason: 'SuccessfulCreate',
            hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' },
            persistentVolumeClaimInfo: { claimName: 'hp', volumeMode: 'Filesystem' },
          },
        ],
      },
    });
    expect(events()).toEqual([
      'Normal SuccessfulCreate Created hotplug attachment pod hp-volume-a, for volume hp',
    ]);
  });

  it('the claim missing: no attachment Pod, the volume Pending', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    await run();
    expect(creates()).toEqual([]);
    expect(body(0)).toMatchObject({
      status: { volumeStatus: [{ name: 'hp', phase: 'Pending', reason: 'FailedPvcNotFound' }] },
    });
  });

  it('create refused: Warning FailedCreate, retried, the expectation lowered', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    h.client.failNext('create', 'pods', forbidden('exceeded quota'));
    await expect(run()).rejects.toThrow(/exceeded quota/);
    expect(events()).toEqual(['Warning FailedCreate Error creating attachment pod: exceeded quota']);
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
  });

  it('the volume removed: its Pod deleted at once, the volume Detaching until the Pod is gone', async () => {
    const attached = {
      name: 'hp',
      target: 'sda',
      phase: 'AttachedToNode',
      hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' },
    };
    runningVmi(withVolumeStatus(attached));
    const attachment = attachmentPod('hp-volume-a', ['hp'], attachReady);
    h.pods.add(attachment);
    await run();
    expect(h.client.log).toEqual([
      'delete pods default/hp-volume-a',
      'patch virtualmachineinstances default/testvm',
    ]);
    expect(h.client.actions[0]?.options).toMatchObject({ gracePeriodSeconds: 0 });
    expect(body(1)).toMatchObject({ status: { volumeStatus: [{ ...attached, phase: 'Detaching' }] } });
    expect(events()).toEqual(['Normal SuccessfulDelete Deleted attachment pod hp-volume-a']);
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(false);
    h.pods.delete(attachment);
    handler().onDelete?.(attachment);
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
    h.vmis.add(
      vmi(withPhase('Running'), withVolumeStatus({ ...attached, phase: 'Detaching' }), (x) => {
        x.metadata.resourceVersion = '78';
        x.status = { ...x.status, nodeName: 'node1' };
      }),
    );
    await run();
    expect(h.client.actions.at(-1)?.body).toMatchObject({ status: { volumeStatus: null } });
  });

  it('a final VMI: its attachment Pods go', async () => {
    h.vmis.add(vmi(withPhase('Failed', 'Running')));
    h.pods.add(pod(podReady('node1'), withPodPhase('Failed')));
    h.pods.add(attachmentPod('hp-volume-a', ['hp'], attachReady));
    await run();
    expect(h.client.log[0]).toBe('delete pods default/hp-volume-a');
  });

  it('a launcher Pod not ready yet: no attachment Pod', async () => {
    h.vmis.add(vmi(withPhase('Scheduling'), withHotplugVolume('hp', 'hp')));
    h.pods.add(pod((p) => (p.spec.nodeName = 'node1')));
    h.pvcs.add(pvc('hp', bound));
    await run();
    expect(creates()).toEqual([]);
  });

  it('a new VMI on a Block claim: the launcher Pod gets the device, the status the claim', async () => {
    h.vmis.add(vmi(withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } })));
    h.pvcs.add(pvc('root', bound, block));
    await run();
    expect(body(0)).toHaveProperty('spec.containers.0.volumeDevices', [
      { name: 'root', devicePath: '/dev/root' },
    ]);
    expect(body(1)).toMatchObject({
      status: {
        phase: 'Scheduling',
        volumeStatus: [{ name: 'root', target: '', persistentVolumeClaimInfo: { volumeMode: 'Block' } }],
      },
    });
  });
});

describe('VMI controller handlers: claims and attachment Pods', () => {
  it('a claim event wakes the VMIs that use it', () => {
    h.vmis.add(vmi(withHotplugVolume('hp', 'disk')));
    const enqueued: string[] = [];
    const hd = pvcHandler(h.vmis, (k) => enqueued.push(k));
    hd.onAdd?.(pvc('disk'));
    hd.onAdd?.(pvc('other'));
    hd.onUpdate?.(pvc('disk'), pvc('disk'));
    hd.onUpdate?.(
      pvc('disk'),
      pvc('disk', bound, (p) => (p.metadata.resourceVersion = '6')),
    );
    expect(enqueued).toEqual([KEY, KEY]);
  });

  it('an attachment Pod event wakes the VMI of its launcher Pod (uids checked)', () => {
    runningVmi();
    const enqueued: string[] = [];
    handler(enqueued).onAdd?.(attachmentPod('hp-volume-a', ['hp']));
    const stranger = attachmentPod('hp-volume-b', ['hp'], (p) => {
      const ref = p.metadata.ownerReferences?.[0];
      if (ref !== undefined) p.metadata.ownerReferences = [{ ...ref, uid: 'another-launcher' }];
    });
    handler(enqueued).onAdd?.(stranger);
    expect(enqueued).toEqual([KEY]);
  });
});

describe('VmiController: attachment Pods of hotplugged DRA claims', () => {
  /** A host device on claim `hot`, which the launcher Pod (created without claims) does not have. */
  const withHotClaim = (x: VirtualMachineInstance): void => {
    x.spec.domain.devices = { hostDevices: [{ name: 'usb1', claimName: 'hot', requestName: 'req' }] };
    x.spec.resourceClaims = [{ name: 'hot', resourceClaimTemplateName: 'hot-template' }];
  };
  const devicePod = (name: string, claim: string): Pod => {
    const p = attachmentPod(name, []);
    p.metadata.labels = { 'kubevirt.io': 'hotplug-device' };
    p.spec['resourceClaims'] = [{ name: claim }];
    return p;
  };

  it('a claim added to a running VMI: one Pod holding it on the node, the volume attachment Pods untouched', async () => {
    runningVmi(withHotClaim, withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    h.pods.add(attachmentPod('hp-volume-a', ['hp'], attachReady));
    await run();
    expect(creates()).toEqual(['create pods default/hp-device-gen1']);
    expect(h.client.log.filter((a) => a.startsWith('delete'))).toEqual([]);
    expect(body(0)).toMatchObject({
      metadata: { generateName: 'hp-device-', labels: { 'kubevirt.io': 'hotplug-device' } },
      spec: {
        resourceClaims: [{ name: 'hot', resourceClaimTemplateName: 'hot-template' }],
        containers: [{ name: 'hotplug-device', resources: { claims: [{ name: 'hot', request: 'req' }] } }],
      },
    });
    expect(events()).toContain('Normal SuccessfulCreate Created attachment pod hp-device-gen1');
  });

  it('the claim removed: its Pod deleted, while a volume attachment Pod stays', async () => {
    runningVmi(withHotplugVolume('hp', 'hp'));
    h.pvcs.add(pvc('hp', bound));
    h.pods.add(attachmentPod('hp-volume-a', ['hp'], attachReady));
    h.pods.add(devicePod('hp-device-a', 'hot'));
    await run();
    expect(creates()).toEqual([]);
    expect(h.client.log.filter((a) => a.startsWith('delete'))).toEqual(['delete pods default/hp-device-a']);
  });

  it('a final VMI: its device attachment Pods go too', async () => {
    h.vmis.add(vmi(withPhase('Failed'), withHotClaim));
    h.pods.add(pod(podReady('node1')));
    h.pods.add(devicePod('hp-device-a', 'hot'));
    await run();
    expect(h.client.log.filter((a) => a.startsWith('delete'))).toContain('delete pods default/hp-device-a');
  });
});
