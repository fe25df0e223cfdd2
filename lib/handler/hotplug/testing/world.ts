/**
 * A consistent hotplug world for the handler's tests: a VMI on node `n1` whose volume `hp` the controller marked
 * AttachedToNode, its launcher Pod, the attachment Pod holding claim `hp-claim`, the claim Bound to its
 * PersistentVolume (hostPath, local or CSI), and an in-memory reader of them that answers 404 for anything else.
 * Each test breaks one piece.
 */
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';
import type { Pod } from '../../../kubevirt/core/pod.ts';
import type { PersistentVolume } from '../../../kubevirt/core/pv.ts';
import type { PersistentVolumeClaim } from '../../../kubevirt/core/pvc.ts';
import { newStatus, StatusError } from '../../../kernel/errors/errors.ts';
import type { GroupVersionResource, KubeObject } from '../../../kernel/kube/types.ts';
import type { ObjectReader } from '../lookup.ts';

export const NODE = 'n1';
export const NS = 'tenant';
export const UIDS = {
  vmi: '11111111-1111-4111-8111-111111111111',
  launcher: '22222222-2222-4222-8222-222222222222',
  attach: '33333333-3333-4333-8333-333333333333',
  claim: '44444444-4444-4444-8444-444444444444',
} as const;
export const CLAIM = 'hp-claim';
export const PV_NAME = 'pv-hp';

export interface HotplugWorld {
  vmi: VirtualMachineInstance;
  launcher: Pod;
  attach: Pod;
  pvc: PersistentVolumeClaim;
  pv: PersistentVolume;
}

const controller = (
  kind: string,
  name: string,
  uid: string,
): NonNullable<Pod['metadata']['ownerReferences']> => [
  { apiVersion: kind === 'Pod' ? 'v1' : 'kubevirt.io/v1', kind, name, uid, controller: true },
];

/** The PV source: a hostPath (or local) directory or device path, or CSI. */
export type PvSource = { hostPath: string } | { local: string } | 'csi';

export function hotplugWorld(o: { source: PvSource; block?: boolean }): HotplugWorld {
  const block = o.block === true;
  const vmi: VirtualMachineInstance = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm1', namespace: NS, uid: UIDS.vmi },
    spec: {
      domain: { devices: { disks: [{ name: 'hp', disk: { bus: 'scsi' } }] } },
      volumes: [{ name: 'hp', persistentVolumeClaim: { claimName: CLAIM, hotpluggable: true } }],
    },
    status: {
      nodeName: NODE,
      activePods: { [UIDS.launcher]: NODE },
      volumeStatus: [
        {
          name: 'hp',
          target: '',
          phase: 'AttachedToNode',
          hotplugVolume: { attachPodName: 'hp-volume-abcde', attachPodUID: UIDS.attach },
          persistentVolumeClaimInfo: { claimName: CLAIM, volumeMode: block ? 'Block' : 'Filesystem' },
        },
      ],
    },
  };
  const launcher: Pod = {
    metadata: {
      name: 'virt-launcher-vm1-xyz',
      namespace: NS,
      uid: UIDS.launcher,
      ownerReferences: controller('VirtualMachineInstance', 'vm1', UIDS.vmi),
    },
    spec: { containers: [], nodeName: NODE },
  };
  const attach: Pod = {
    metadata: {
      name: 'hp-volume-abcde',
      namespace: NS,
      uid: UIDS.attach,
      ownerReferences: controller('Pod', launcher.metadata.name ?? '', UIDS.launcher),
    },
    spec: {
      containers: [],
      nodeName: NODE,
      volumes: [
        { name: 'hotplug-disks', emptyDir: {} },
        { name: 'hp', persistentVolumeClaim: { claimName: CLAIM } },
      ],
    },
  };
  const pvc: PersistentVolumeClaim = {
    metadata: { name: CLAIM, namespace: NS, uid: UIDS.claim },
    spec: { volumeName: PV_NAME, volumeMode: block ? 'Block' : 'Filesystem' },
    status: { phase: 'Bound' },
  };
  const source =
    o.source === 'csi'
      ? { csi: { driver: 'csi.example.com', volumeHandle: 'h1' } }
      : 'hostPath' in o.source
        ? { hostPath: { path: o.source.hostPath } }
        : { local: { path: o.source.local } };
  const pv: PersistentVolume = {
    metadata: { name: PV_NAME },
    spec: { ...source, claimRef: { namespace: NS, name: CLAIM, uid: UIDS.claim } },
    status: { phase: 'Bound' },
  };
  return { vmi, launcher, attach, pvc, pv };
}

/** Reads the world's Pods, claim and volume (by resource, namespace and name); 404 for anything else. */
export function readerOf(w: Partial<HotplugWorld>, counts?: Map<string, number>): ObjectReader {
  const objects = [w.launcher, w.attach, w.pvc, w.pv].filter((x): x is KubeObject => x !== undefined);
  const resourceOf = (x: KubeObject): string =>
    x === w.pv ? 'persistentvolumes' : x === w.pvc ? 'persistentvolumeclaims' : 'pods';
  return {
    get<T extends KubeObject>(
      gvr: GroupVersionResource,
      name: string,
      opts?: { namespace?: string },
    ): Promise<T> {
      const key = `${gvr.resource} ${opts?.namespace ?? ''}/${name}`;
      counts?.set(key, (counts.get(key) ?? 0) + 1);
      const hit = objects.find(
        (x) =>
          resourceOf(x) === gvr.resource &&
          x.metadata.name === name &&
          (x.metadata.namespace ?? '') === (opts?.namespace ?? ''),
      );
      if (hit === undefined) return Promise.reject(new StatusError(newStatus(404, `${key} not found`)));
      return Promise.resolve(structuredClone(hit) as T);
    },
  };
}

const IMAGE = 'dvcr.example/cvi/iso:1';

/**
 * The world with volume `hp` a hotplugged containerDisk of IMAGE (a CD-ROM) instead of a claim: the attachment
 * Pod holds the image as an image volume its container mounts at /images/hp.
 */
export function imageWorld(o: { path?: string } = {}): HotplugWorld {
  const w = hotplugWorld({ source: 'csi' });
  const containerDisk = { image: IMAGE, hotpluggable: true, ...(o.path !== undefined && { path: o.path }) };
  w.vmi.spec.volumes = [{ name: 'hp', containerDisk }];
  w.vmi.spec.domain.devices.disks = [{ name: 'hp', cdrom: { bus: 'scsi' } }];
  w.vmi.status = {
    ...w.vmi.status,
    volumeStatus: [
      {
        name: 'hp',
        target: '',
        phase: 'AttachedToNode',
        hotplugVolume: { attachPodName: 'hp-volume-abcde', attachPodUID: UIDS.attach },
        containerDiskVolume: {},
      },
    ],
  };
  w.attach.spec['volumes'] = [
    { name: 'hotplug-disks', emptyDir: {} },
    { name: 'hp', image: { reference: IMAGE } },
  ];
  w.attach.spec.containers = [
    {
      name: 'hotplug-disk',
      image: 'virt:test',
      volumeMounts: [{ name: 'hp', mountPath: '/images/hp', readOnly: true }],
    },
  ];
  return w;
}
