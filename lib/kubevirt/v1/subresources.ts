/**
 * Bodies of the subresources.kubevirt.io/v1 calls (start, stop, restart, addvolume, freeze, ...). Add/remove
 * volume and resource claim options are also stored in a VM's status (volumeRequests, resourceClaimRequests).
 */
import { s, type Infer } from '../schema/dsl.ts';
import { dryRun } from './common.ts';
import { disk } from './disk.ts';
import { hostDevice } from './devices.ts';
import { podResourceClaim } from './vmi-spec.ts';
import { hotplugVolumeSource } from './volume.ts';

/** apiVersion and kind, optional on request bodies. */
const typeMeta = { apiVersion: s.string(), kind: s.string() };

export const addVolumeOptions = s.object({
  /** Name of both the disk and the volume; overrides disk.name. */
  name: s.string().required(),
  disk: disk.required(),
  volumeSource: hotplugVolumeSource.required(),
  dryRun,
});
export type AddVolumeOptions = Infer<typeof addVolumeOptions>;

export const removeVolumeOptions = s.object({ name: s.string().required(), dryRun });
export type RemoveVolumeOptions = Infer<typeof removeVolumeOptions>;

/** Deckhouse fork: hotplug a DRA host device (HotplugHostDevicesWithDRA). */
export const addResourceClaimOptions = s.object({
  name: s.string().required(),
  hostDevice: hostDevice.required(),
  resourceClaim: podResourceClaim.required(),
  dryRun,
});
export type AddResourceClaimOptions = Infer<typeof addResourceClaimOptions>;

export const removeResourceClaimOptions = s.object({ name: s.string().required(), dryRun });
export type RemoveResourceClaimOptions = Infer<typeof removeResourceClaimOptions>;

/** Body of freeze: a Go duration such as "5m0s" after which the guest is thawed anyway. */
export const freezeUnfreezeTimeout = s.object({ unfreezeTimeout: s.string().required() });
export type FreezeUnfreezeTimeout = Infer<typeof freezeUnfreezeTimeout>;

export const startOptions = s.object({ ...typeMeta, paused: s.bool(), dryRun });
export type StartOptions = Infer<typeof startOptions>;

/** gracePeriod replaces the VMI's terminationGracePeriodSeconds for this shutdown. */
export const stopOptions = s.object({ ...typeMeta, gracePeriod: s.int('int64'), dryRun });
export type StopOptions = Infer<typeof stopOptions>;

/** gracePeriodSeconds: only 0 (force restart now) or absent. */
export const restartOptions = s.object({ ...typeMeta, gracePeriodSeconds: s.int('int64'), dryRun });
export type RestartOptions = Infer<typeof restartOptions>;

export const pauseOptions = s.object({ ...typeMeta, dryRun });
export type PauseOptions = Infer<typeof pauseOptions>;

export const unpauseOptions = pauseOptions;
export type UnpauseOptions = PauseOptions;

export const migrateOptions = s.object({ ...typeMeta, dryRun, addedNodeSelector: s.map(s.string()) });
export type MigrateOptions = Infer<typeof migrateOptions>;
