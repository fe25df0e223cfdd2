/**
 * Option-builder fixtures for hotplug tests: claims (pvc('disk', bound, block)), hotplug volumes on a VMI
 * (withHotplugVolume('hp', 'disk')), volume statuses, and attachment Pods of the fixtures' launcher Pod
 * (attachmentPod('hp-volume-a', ['hp'], withPodPhase('Running'))).
 */
import type { Volume, VolumeStatus, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { ClaimLookup, PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { withVolume as withSpecVolume } from '../../kubevirt/testing/builders.ts';
import { NS, onSpec, pod, type Option } from '../../kubevirt/testing/objects.ts';

const LAUNCHER_UID = 'pod-uid-1';

export function pvc(name: string, ...opts: Option<PersistentVolumeClaim>[]): PersistentVolumeClaim {
  const out: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, uid: `pvc-uid-${name}`, resourceVersion: '5' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      resources: { requests: { storage: '1Gi' } },
    },
    status: { phase: 'Pending' },
  };
  for (const o of opts) o(out);
  return out;
}

export const bound: Option<PersistentVolumeClaim> = (p) => {
  p.status = { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] };
};

export const claimPhase =
  (phase: 'Pending' | 'Bound' | 'Lost'): Option<PersistentVolumeClaim> =>
  (p) => {
    (p.status ??= {}).phase = phase;
  };

export const block: Option<PersistentVolumeClaim> = (p) => {
  (p.spec ??= {}).volumeMode = 'Block';
};

/** Controlled by a CDI DataVolume of the same name. */
export const ownedByDataVolume: Option<PersistentVolumeClaim> = (p) => {
  p.metadata.ownerReferences = [
    {
      apiVersion: 'cdi.kubevirt.io/v1beta1',
      kind: 'DataVolume',
      name: p.metadata.name ?? '',
      uid: 'dv-uid',
      controller: true,
    },
  ];
};

/** A lookup over these claims. */
export const claims =
  (...pvcs: PersistentVolumeClaim[]): ClaimLookup =>
  (name) =>
    pvcs.find((p) => p.metadata.name === name);

/** The volume in spec.volumes. */
export const withVolume = (v: Volume): Option<VirtualMachineInstance> => onSpec(withSpecVolume(v));

/** A hotpluggable PVC volume (or DataVolume with dataVolume: true). */
export const withHotplugVolume = (
  name: string,
  claim: string,
  dataVolume = false,
): Option<VirtualMachineInstance> =>
  withVolume(
    dataVolume
      ? { name, dataVolume: { name: claim, hotpluggable: true } }
      : { name, persistentVolumeClaim: { claimName: claim, hotpluggable: true } },
  );

/** A hotpluggable containerDisk volume of this image (the Deckhouse fork's hotplugged ISO). */
export const withHotplugImage = (name: string, image: string): Option<VirtualMachineInstance> =>
  withVolume({ name, containerDisk: { image, hotpluggable: true } });

/** The attachment Pod also holds these image volumes (image = `<volume>:img`). */
export const withPodImages =
  (...names: string[]): Option<Pod> =>
  (p) => {
    const volumes = Array.isArray(p.spec['volumes']) ? (p.spec['volumes'] as unknown[]) : [];
    p.spec['volumes'] = [...volumes, ...names.map((n) => ({ name: n, image: { reference: `${n}:img` } }))];
  };

export const withVolumeStatus =
  (...statuses: VolumeStatus[]): Option<VirtualMachineInstance> =>
  (x) => {
    const status = (x.status ??= {});
    status.volumeStatus = [...(status.volumeStatus ?? []), ...statuses];
  };

/** An attachment Pod of the fixtures' launcher Pod holding the claims of these volumes (claim = volume). */
export function attachmentPod(name: string, volumes: readonly string[], ...opts: Option<Pod>[]): Pod {
  return pod(
    (p) => {
      p.metadata = {
        name,
        namespace: NS,
        uid: `uid-${name}`,
        resourceVersion: '40',
        creationTimestamp: '2026-01-01T00:00:10Z',
        labels: { 'kubevirt.io': 'hotplug-disk' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: 'virt-launcher-testvm-abcde',
            uid: LAUNCHER_UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      };
      p.spec = {
        containers: [{ name: 'hotplug-disk', image: 'virt:test' }],
        volumes: [
          { name: 'hotplug-disks', emptyDir: {} },
          ...volumes.map((v) => ({ name: v, persistentVolumeClaim: { claimName: v } })),
        ],
      };
    },
    ...opts,
  );
}

export const createdAt =
  (ts: string): Option<Pod> =>
  (p) => {
    p.metadata.creationTimestamp = ts;
  };

/** The attachment Pod's container is ready (the node may mount from it). */
export const attachReady: Option<Pod> = (p) => {
  p.status = { phase: 'Running', containerStatuses: [{ name: 'hotplug-disk', ready: true }] };
};

/** The launcher Pod mounts these claim volumes (claim = volume). */
export const withPodClaims =
  (...names: string[]): Option<Pod> =>
  (p) => {
    p.spec['volumes'] = names.map((n) => ({ name: n, persistentVolumeClaim: { claimName: n } }));
  };
