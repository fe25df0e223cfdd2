/** Volumes of a VMI (spec.volumes) and the hotplug volume sources of addvolume. */
import { s, type Infer } from '../schema/dsl.ts';
import { imagePullPolicy, localObjectReference, opaque } from './common.ts';

const containerDiskFields = {
  image: s.string(),
  imagePullSecret: s.string(),
  /** Path of the disk image inside the container (default: the first file under /disk). */
  path: s.string(),
  imagePullPolicy,
  /** Deckhouse fork: a containerDisk that may be hotplugged. */
  hotpluggable: s.bool(),
};

const containerDiskSource = s.object({ ...containerDiskFields, image: s.string().required() });

const pvcSource = s.object({
  claimName: s.string().required(),
  readOnly: s.bool(),
  hotpluggable: s.bool(),
});

const dataVolumeSource = s.object({ name: s.string().required(), hotpluggable: s.bool() });

const hostDiskType = s.enum(['Disk', 'DiskOrCreate']);

const hostDiskSource = s.object({
  path: s.string().required(),
  type: hostDiskType.required(),
  capacity: s.quantity(),
  shared: s.bool(),
});

const emptyDiskSource = s.object({ capacity: s.quantity().required() });

const ephemeralSource = s.object({
  persistentVolumeClaim: s.object({ claimName: s.string().required(), readOnly: s.bool() }),
});

const cloudInitSource = s.object({
  userData: s.string(),
  userDataBase64: s.string(),
  secretRef: localObjectReference,
  networkData: s.string(),
  networkDataBase64: s.string(),
  networkDataSecretRef: localObjectReference,
});
export type CloudInitSource = Infer<typeof cloudInitSource>;

const memoryDumpSource = s.object({
  claimName: s.string().required(),
  readOnly: s.bool(),
  hotpluggable: s.bool(),
});

export const volume = s.object({
  name: s.string().required(),
  containerDisk: containerDiskSource,
  persistentVolumeClaim: pvcSource,
  dataVolume: dataVolumeSource,
  hostDisk: hostDiskSource,
  emptyDisk: emptyDiskSource,
  ephemeral: ephemeralSource,
  cloudInitNoCloud: cloudInitSource,
  cloudInitConfigDrive: cloudInitSource,
  configMap: s.object({ name: s.string(), optional: s.bool(), volumeLabel: s.string() }),
  secret: s.object({ secretName: s.string(), optional: s.bool(), volumeLabel: s.string() }),
  serviceAccount: s.object({ serviceAccountName: s.string() }),
  downwardAPI: s.object({ fields: s.array(opaque), volumeLabel: s.string() }),
  downwardMetrics: s.empty(),
  memoryDump: memoryDumpSource,
  sysprep: s.object({ secret: localObjectReference, configMap: localObjectReference }),
});
export type Volume = Infer<typeof volume>;

/** What addvolume can attach: a PVC, a DataVolume or (Deckhouse fork) a containerDisk. */
export const hotplugVolumeSource = s.object({
  persistentVolumeClaim: pvcSource,
  dataVolume: dataVolumeSource,
  containerDisk: s.object(containerDiskFields),
});
export type HotplugVolumeSource = Infer<typeof hotplugVolumeSource>;
