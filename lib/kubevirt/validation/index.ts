/**
 * Pure admission validators for the api role's validating webhooks, KubeVirt v1.6.2's rules (with the
 * Deckhouse fork's changes) as functions from plain inputs to a list of Kubernetes StatusCauses; an empty
 * list admits. The webhook decodes the request, checks the object against its schema, calls one of these and
 * builds the response.
 */
export type { AdmissionCause, CauseType } from './causes.ts';
export {
  DECKHOUSE_FEATURE_GATES,
  DEFAULT_EMULATED_MACHINES,
  GATES,
  type ValidationContext,
} from './context.ts';
export { configuringKubeVirt, DEFAULT_VALIDATION_CONTEXT, readClusterConfig } from './cluster-config.ts';
export { validateVmiSpec } from './vmi-spec.ts';
export { validateVmiCreate, type VmiCreateContext } from './vmi-create.ts';
export { validateVmiUpdate, type VmiUpdateContext } from './vmi-update.ts';
export { validateVmiMetadata, RESTRICTED_VMI_LABELS } from './vmi-metadata.ts';
export { validateVm, type VmContext } from './vm.ts';
export type { RunningVmi } from './vm-pending-requests.ts';
export {
  validateMigrationCreate,
  validateMigrationUpdate,
  type MigrationCreateContext,
} from './migration.ts';
export { readKubeVirt, type KubeVirtView } from './kubevirt-cr-read.ts';
export {
  blocksUninstall,
  kubeVirtCreateRefusal,
  kubeVirtUpdateWarnings,
  uninstallRefusal,
  validateKubeVirtUpdate,
  type KubeVirtUpdateContext,
  type UninstallBlocker,
} from './kubevirt-cr.ts';
export {
  placementChecks,
  placementProbe,
  type PlacementCheck,
  type PlacementProbe,
} from './kubevirt-cr-placement.ts';
