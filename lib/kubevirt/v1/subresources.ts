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

type DryRun = Infer<typeof dryRun>;

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
export type FreezeUnfreezeTimeout = { unfreezeTimeout: string };

/** apiVersion and kind are optional on the request bodies below. */
export type StartOptions = { apiVersion?: string; kind?: string; paused?: boolean; dryRun?: DryRun };

/** gracePeriod replaces the VMI's terminationGracePeriodSeconds for this shutdown. */
export type StopOptions = { apiVersion?: string; kind?: string; gracePeriod?: number; dryRun?: DryRun };

/** gracePeriodSeconds: only 0 (force restart now) or absent. */
export type RestartOptions = {
  apiVersion?: string;
  kind?: string;
  gracePeriodSeconds?: number;
  dryRun?: DryRun;
};

export type PauseOptions = { apiVersion?: string; kind?: string; dryRun?: DryRun };

/** addedNodeSelector narrows the target nodes of the migration the call creates. */
export type MigrateOptions = {
  apiVersion?: string;
  kind?: string;
  dryRun?: DryRun;
  addedNodeSelector?: Record<string, string>;
};

/** Deckhouse fork: the body of evacuatecancel. */
export type EvacuateCancelOptions = { apiVersion?: string; kind?: string; dryRun?: DryRun };
