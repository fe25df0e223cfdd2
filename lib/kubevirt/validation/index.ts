/**
 * Pure admission validators for the api role's validating webhooks, KubeVirt v1.6.2's rules (with the
 * Deckhouse fork's changes) as functions from plain inputs to a list of Kubernetes StatusCauses; an empty
 * list admits. The webhook decodes the request, checks the object against its schema, calls one of these and
 * builds the response.
 */
export type { AdmissionCause } from './causes.ts';
export { DECKHOUSE_FEATURE_GATES, type ValidationContext } from './context.ts';
export { configuringKubeVirt, DEFAULT_VALIDATION_CONTEXT, readClusterConfig } from './cluster-config.ts';
export { validateVmiCreate } from './vmi-create.ts';
export { validateVmiUpdate, type VmiUpdateContext } from './vmi-update.ts';
export { validateVm } from './vm.ts';
export type { RunningVmi } from './vm-pending-requests.ts';
export { validateMigrationCreate, validateMigrationUpdate } from './migration.ts';
export {
  readKubeVirt,
  type KubeVirtView,
  type PlacementView,
  type TolerationView,
} from './kubevirt-cr-read.ts';
export { KubeVirtDecodeError } from './go-json.ts';
export {
  blocksUninstall,
  kubeVirtCreateRefusal,
  kubeVirtUpdateWarnings,
  selfSignedCauses,
  selfSignedRotation,
  uninstallRefusal,
  validateKubeVirtUpdate,
} from './kubevirt-cr.ts';
export {
  placementChecks,
  placementProbe,
  type PlacementCheck,
  type PlacementProbe,
} from './kubevirt-cr-placement.ts';
