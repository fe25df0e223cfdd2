/**
 * The Go shapes of the subresource bodies (kubevirt staging/src/kubevirt.io/api/core/v1 types.go StartOptions,
 * StopOptions, RestartOptions, PauseOptions, UnpauseOptions, MigrateOptions, AddVolumeOptions, RemoveVolumeOptions;
 * the fork's EvacuateCancelOptions; schema.go Disk,
 * HotplugVolumeSource and their members, with the Deckhouse fork's containerDisk source, tag v1.6.2; the fork's
 * AddResourceClaimOptions and RemoveResourceClaimOptions, as deckhouse/3p-kubevirt rest/resourceclaims.go reads
 * them: HostDevice with its inline ClaimRequest, ResourceClaim with its inline core v1 PodResourceClaim), as
 * go-json.ts needs them: JSON field names, Go types as Go prints them, and which fields are pointers. Embedded
 * structs (TypeMeta, DiskDevice, core v1 PersistentVolumeClaimVolumeSource) have their fields listed in place, as
 * encoding/json promotes them. Pure data.
 */
import type { GoType } from './go-json.ts';

type StructType = Extract<GoType, { kind: 'struct' }>;

const str: GoType = { kind: 'string' };
const bool: GoType = { kind: 'bool' };
const boolPtr: GoType = { kind: 'bool', ptr: true };
const int64Ptr: GoType = { kind: 'int64', ptr: true };
const uint: GoType = { kind: 'uint' };
const named = (name: string): GoType => ({ kind: 'string', name });
const dryRun: GoType = { kind: 'slice', of: str };
const typeMeta = { kind: str, apiVersion: str };

const struct = (name: string, fields: Record<string, GoType>, ptr?: true): StructType => ({
  kind: 'struct',
  name,
  fields,
  ...(ptr && { ptr }),
});

const bus = named('v1.DiskBus');

const disk = struct(
  'v1.Disk',
  {
    name: str,
    disk: struct('v1.DiskTarget', { bus, readonly: bool, pciAddress: str }, true),
    lun: struct('v1.LunTarget', { bus, readonly: bool, reservation: bool }, true),
    cdrom: struct('v1.CDRomTarget', { bus, readonly: boolPtr, tray: named('v1.TrayState') }, true),
    bootOrder: { kind: 'uint', ptr: true },
    serial: str,
    dedicatedIOThread: boolPtr,
    cache: named('v1.DriverCache'),
    io: named('v1.DriverIO'),
    tag: str,
    blockSize: struct(
      'v1.BlockSize',
      {
        custom: struct('v1.CustomBlockSize', { logical: uint, physical: uint }, true),
        matchVolume: struct('v1.FeatureState', { enabled: boolPtr }, true),
      },
      true,
    ),
    shareable: boolPtr,
    errorPolicy: { kind: 'string', name: 'v1.DiskErrorPolicy', ptr: true },
  },
  true,
);

const volumeSource = struct(
  'v1.HotplugVolumeSource',
  {
    persistentVolumeClaim: struct(
      'v1.PersistentVolumeClaimVolumeSource',
      { claimName: str, readOnly: bool, hotpluggable: bool },
      true,
    ),
    dataVolume: struct('v1.DataVolumeSource', { name: str, hotpluggable: bool }, true),
    containerDisk: struct(
      'v1.ContainerDiskSource',
      {
        image: str,
        imagePullSecret: str,
        path: str,
        imagePullPolicy: named('v1.PullPolicy'),
        hotpluggable: bool,
      },
      true,
    ),
  },
  true,
);

export const START_OPTIONS = struct('v1.StartOptions', { ...typeMeta, paused: bool, dryRun });
export const STOP_OPTIONS = struct('v1.StopOptions', { ...typeMeta, gracePeriod: int64Ptr, dryRun });
export const RESTART_OPTIONS = struct('v1.RestartOptions', {
  ...typeMeta,
  gracePeriodSeconds: int64Ptr,
  dryRun,
});
export const PAUSE_OPTIONS = struct('v1.PauseOptions', { ...typeMeta, dryRun });
export const UNPAUSE_OPTIONS = struct('v1.UnpauseOptions', { ...typeMeta, dryRun });
export const MIGRATE_OPTIONS = struct('v1.MigrateOptions', {
  ...typeMeta,
  dryRun,
  addedNodeSelector: { kind: 'map', of: str },
});
/** Deckhouse fork. */
export const EVACUATE_CANCEL_OPTIONS = struct('v1.EvacuateCancelOptions', { ...typeMeta, dryRun });
export const ADD_VOLUME_OPTIONS = struct('v1.AddVolumeOptions', { name: str, disk, volumeSource, dryRun });
export const REMOVE_VOLUME_OPTIONS = struct('v1.RemoveVolumeOptions', { name: str, dryRun });

const strPtr: GoType = { kind: 'string', ptr: true };
const hostDevice = struct(
  'v1.HostDevice',
  { name: str, deviceName: str, claimName: strPtr, requestName: strPtr, tag: str },
  true,
);
const resourceClaim = struct(
  'v1.ResourceClaim',
  { name: str, resourceClaimName: strPtr, resourceClaimTemplateName: strPtr, hotpluggable: bool },
  true,
);
export const ADD_RESOURCE_CLAIM_OPTIONS = struct('v1.AddResourceClaimOptions', {
  name: str,
  hostDevice,
  resourceClaim,
  dryRun,
});
export const REMOVE_RESOURCE_CLAIM_OPTIONS = struct('v1.RemoveResourceClaimOptions', { name: str, dryRun });
