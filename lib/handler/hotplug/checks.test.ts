import { describe, expect, it } from '@jest/globals';
import { attachmentProblem, claimProblem, controllingPodName, volumeProblem } from './checks.ts';
import { wantedHotplug, type WantedHotplug } from './plan.ts';
import { CLAIM, hotplugWorld, NODE, NS, PV_NAME, UIDS, type HotplugWorld } from './testing/world.ts';

const OTHER_UID = '55555555-5555-4555-8555-555555555555';

function want(w: HotplugWorld): WantedHotplug {
  const first = wantedHotplug(w.vmi).wanted[0];
  if (first === undefined) throw new Error('the world wants no volume');
  return first;
}

describe('claimProblem', () => {
  const world = (): HotplugWorld => hotplugWorld({ source: { hostPath: '/pv' } });
  it.each([
    ['a Bound claim', (): void => undefined, undefined],
    [
      'a missing claim',
      (w: HotplugWorld) => {
        delete (w as Partial<HotplugWorld>).pvc;
      },
      `claim ${NS}/${CLAIM} not found`,
    ],
    [
      'a Pending claim naming a volume (another namespace’s PV, left unbound)',
      (w: HotplugWorld) => {
        w.pvc.status = { phase: 'Pending' };
      },
      `claim ${NS}/${CLAIM} is not Bound (phase Pending)`,
    ],
    [
      'a claim without a status',
      (w: HotplugWorld) => {
        delete w.pvc.status;
      },
      `claim ${NS}/${CLAIM} is not Bound (phase Pending)`,
    ],
    [
      'a Lost claim',
      (w: HotplugWorld) => {
        w.pvc.status = { phase: 'Lost' };
      },
      `claim ${NS}/${CLAIM} is not Bound (phase Lost)`,
    ],
    [
      'a Bound claim naming no volume',
      (w: HotplugWorld) => {
        w.pvc.spec = {};
      },
      `claim ${NS}/${CLAIM} names no persistent volume`,
    ],
  ])('%s', (_what, change, problem) => {
    const w = world();
    change(w);
    expect(claimProblem(NS, CLAIM, (w as Partial<HotplugWorld>).pvc)).toBe(problem);
  });
});

describe('volumeProblem', () => {
  const NOT_OURS = `persistent volume ${PV_NAME} is not bound to claim ${NS}/${CLAIM}`;
  it.each([
    ['a volume whose claimRef is the claim', (): void => undefined, undefined],
    [
      'a volume bound to a claim of another namespace',
      (w: HotplugWorld) => {
        w.pv.spec = { ...w.pv.spec, claimRef: { namespace: 'victim', name: CLAIM, uid: OTHER_UID } };
      },
      NOT_OURS,
    ],
    [
      'a volume bound to another claim of the same namespace',
      (w: HotplugWorld) => {
        w.pv.spec = { ...w.pv.spec, claimRef: { namespace: NS, name: 'other', uid: OTHER_UID } };
      },
      NOT_OURS,
    ],
    [
      'a volume bound to an earlier claim of the same name (another uid)',
      (w: HotplugWorld) => {
        w.pv.spec = { ...w.pv.spec, claimRef: { namespace: NS, name: CLAIM, uid: OTHER_UID } };
      },
      NOT_OURS,
    ],
    [
      'a volume without a claimRef',
      (w: HotplugWorld) => {
        w.pv.spec = { hostPath: { path: '/pv' } };
      },
      NOT_OURS,
    ],
    [
      'a claim without a uid',
      (w: HotplugWorld) => {
        delete w.pvc.metadata.uid;
        w.pv.spec = { ...w.pv.spec, claimRef: { namespace: NS, name: CLAIM } };
      },
      NOT_OURS,
    ],
    [
      'a volume of another name than the claim names',
      (w: HotplugWorld) => {
        w.pv.metadata.name = 'pv-other';
      },
      NOT_OURS,
    ],
    [
      'a missing volume',
      (w: HotplugWorld) => {
        delete (w as Partial<HotplugWorld>).pv;
      },
      `persistent volume ${PV_NAME} not found`,
    ],
  ])('%s', (_what, change, problem) => {
    const w = hotplugWorld({ source: { hostPath: '/pv' } });
    change(w);
    expect(volumeProblem(w.pvc, (w as Partial<HotplugWorld>).pv)).toBe(problem);
  });
});

describe('attachmentProblem', () => {
  const POD = `attachment pod ${NS}/hp-volume-abcde`;
  const NOT_LAUNCHERS = `${POD} is not controlled by the launcher pod of VMI vm1`;
  it.each([
    ['the controller’s attachment Pod', (): void => undefined, undefined],
    [
      'no such Pod',
      (w: HotplugWorld) => {
        delete (w as Partial<HotplugWorld>).attach;
      },
      `${POD} not found`,
    ],
    [
      'a Pod of that name with another uid (the one the status named is gone)',
      (w: HotplugWorld) => {
        w.attach.metadata.uid = OTHER_UID;
      },
      `${POD} is not the pod the volume status names (uid ${UIDS.attach})`,
    ],
    [
      'a Pod on another node',
      (w: HotplugWorld) => {
        w.attach.spec.nodeName = 'n2';
      },
      `${POD} does not run on node ${NODE}`,
    ],
    [
      'a Pod without a controller',
      (w: HotplugWorld) => {
        delete w.attach.metadata.ownerReferences;
      },
      NOT_LAUNCHERS,
    ],
    [
      'a Pod controlled by something other than a Pod',
      (w: HotplugWorld) => {
        w.attach.metadata.ownerReferences = [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: UIDS.launcher, controller: true },
        ];
      },
      NOT_LAUNCHERS,
    ],
    [
      'a Pod whose launcher Pod is gone',
      (w: HotplugWorld) => {
        delete (w as Partial<HotplugWorld>).launcher;
      },
      NOT_LAUNCHERS,
    ],
    [
      'a Pod controlled by a tenant’s own Pod, not the launcher the node mounts into',
      (w: HotplugWorld) => {
        w.launcher.metadata.uid = OTHER_UID;
        w.attach.metadata.ownerReferences = [
          { apiVersion: 'v1', kind: 'Pod', name: 'virt-launcher-vm1-xyz', uid: OTHER_UID, controller: true },
        ];
      },
      NOT_LAUNCHERS,
    ],
    [
      'a launcher Pod controlled by another VMI',
      (w: HotplugWorld) => {
        w.launcher.metadata.ownerReferences = [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachineInstance',
            name: 'x',
            uid: OTHER_UID,
            controller: true,
          },
        ];
      },
      NOT_LAUNCHERS,
    ],
    [
      'a launcher Pod on another node',
      (w: HotplugWorld) => {
        w.launcher.spec.nodeName = 'n2';
      },
      NOT_LAUNCHERS,
    ],
    [
      'a Pod that mounts another claim as the volume',
      (w: HotplugWorld) => {
        w.attach.spec['volumes'] = [{ name: 'hp', persistentVolumeClaim: { claimName: 'victim' } }];
      },
      `${POD} does not mount claim ${CLAIM} as volume hp`,
    ],
    [
      'a Pod that mounts the claim under another volume name',
      (w: HotplugWorld) => {
        w.attach.spec['volumes'] = [{ name: 'other', persistentVolumeClaim: { claimName: CLAIM } }];
      },
      `${POD} does not mount claim ${CLAIM} as volume hp`,
    ],
    [
      'a Pod without volumes',
      (w: HotplugWorld) => {
        delete w.attach.spec['volumes'];
      },
      `${POD} does not mount claim ${CLAIM} as volume hp`,
    ],
  ])('%s', (_what, change, problem) => {
    const w = hotplugWorld({ source: { hostPath: '/pv' } });
    const wanted = want(w);
    change(w);
    const p = w as Partial<HotplugWorld>;
    const facts = {
      vmi: w.vmi,
      node: NODE,
      launcherPodUid: UIDS.launcher,
      attachPod: p.attach,
      launcherPod: p.launcher,
    };
    expect(attachmentProblem(wanted, facts)).toBe(problem);
  });

  it('names the launcher Pod an attachment Pod points at, only when its controller is a Pod', () => {
    const w = hotplugWorld({ source: 'csi' });
    expect(controllingPodName(w.attach)).toBe('virt-launcher-vm1-xyz');
    expect(controllingPodName(w.launcher)).toBeUndefined();
  });
});
