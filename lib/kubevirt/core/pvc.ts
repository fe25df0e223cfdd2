/**
 * The parts of a core/v1 PersistentVolumeClaim the controllers read, and KubeVirt's readings of a claim
 * (kubevirt pkg/storage/types/pvc.go PVCNameFromVirtVolume, IsPreallocated; cdi.go DefaultFSOverhead, tag
 * v1.6.2). A DataVolume volume names the claim of the same name, as in KubeVirt.
 */
import type { Volume } from '../index.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';

type ClaimPhase = 'Pending' | 'Bound' | 'Lost';

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[];
    volumeMode?: string;
    storageClassName?: string;
    volumeName?: string;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  };
  status?: { phase?: ClaimPhase; capacity?: Record<string, string>; accessModes?: string[] };
}

/** Looks a claim up by name in the VMI's namespace. */
export type ClaimLookup = (claimName: string) => PersistentVolumeClaim | undefined;

/** The filesystem overhead KubeVirt reports when no CDI is installed (5.5 %). */
export const DEFAULT_FS_OVERHEAD = '0.055';

/** The claim a PVC or DataVolume volume uses ('' for other sources). */
export function claimNameOf(v: Volume): string {
  return v.persistentVolumeClaim?.claimName ?? v.dataVolume?.name ?? '';
}

export const isBlockClaim = (pvc: PersistentVolumeClaim): boolean => pvc.spec?.volumeMode === 'Block';

/** CDI's preallocation annotations (any prefix) set to "true". */
export function isPreallocated(pvc: PersistentVolumeClaim): boolean {
  return Object.entries(pvc.metadata.annotations ?? {}).some(
    ([k, v]) =>
      v === 'true' && (k.includes('/storage.preallocation') || k.includes('/storage.thick-provisioned')),
  );
}

/** The claim is controlled by a CDI DataVolume. */
export function isDataVolumeClaim(pvc: PersistentVolumeClaim): boolean {
  return pvc.metadata.ownerReferences?.some((r) => r.controller === true && r.kind === 'DataVolume') === true;
}
