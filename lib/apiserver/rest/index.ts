/**
 * The pure cores of the API server's subresources.kubevirt.io handlers. The HTTP shell:
 * 1. matchRequest(method, target): OPTIONS is answered at once; otherwise the access is checked (public, or a
 *    client certificate and a SubjectAccessReview with the attributes given, else accessRefusal), then a 404 or
 *    405 is answered, or the route served;
 * 2. for a route, it reads what the core needs (the VM, the VMI: undefined when absent; the body parsed as JSON,
 *    null when empty; a JSON syntax error is unmarshalFailed with the parser's words) and calls the core;
 * 3. it carries out the plan: the patches in order (patchFailure when one fails), then `then`; or the handler
 *    call (handlerFailure when it fails); a Refusal is written with statusOf, or as text when plainText.
 */
export { accessFor, accessRefusal, NOT_AUTHENTICATED, type Access } from './access.ts';
export { decodeOptions } from './body/decode-body.ts';
export {
  apiGroup,
  apiGroupList,
  apiResourceList,
  rootPaths,
  SUBRESOURCE_GROUP,
  SUBRESOURCE_VERSIONS,
} from './discovery.ts';
export { handlerFailure, unexpectedReturnCode, type HandlerCall } from './vmi/handler-call.ts';
export { launcherPodSelectors, pickLauncherPod } from './lifecycle/launcher-pod.ts';
export {
  ACCEPTED,
  patchFailure,
  type Accepted,
  type JsonPatchOp,
  type PatchError,
  type PatchPlan,
  type PatchTarget,
  type VmPlan,
} from './patch-plan.ts';
export {
  badRequest,
  conflict,
  internalError,
  isRefusal,
  notFound,
  unmarshalFailed,
  type Refusal,
} from './refusal.ts';
export {
  matchRequest,
  type Route,
  type RouteMatch,
  type SubresourceResource,
  type SubresourceVersion,
} from './routes.ts';
export {
  addResourceClaimRequest,
  removeResourceClaimRequest,
  RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED,
} from './claims/resource-claim-options.ts';
export { planVmiResourceClaim, planVmResourceClaim, type ResourceClaimChange } from './claims/resource-claims.ts';
export { statusOf, type SubresourceStatus } from './status.ts';
export { planRestart } from './lifecycle/vm-restart.ts';
export { type VmRequest } from './lifecycle/vm-request.ts';
export { planStart } from './lifecycle/vm-start.ts';
export { planStop } from './lifecycle/vm-stop.ts';
export { planVmiCommand, type CommandPlan, type VmiCommand, type VmiCommandRequest } from './vmi/vmi-commands.ts';
export { planVmiQuery, planVmiStream, type VmiQuery, type VmiStream } from './vmi/vmi-reads.ts';
export { addVolumeRequest, removeVolumeRequest, type FeatureGates } from './volumes/volume-options.ts';
export { planVmiVolume, planVmVolume, type VolumeChange } from './volumes/volumes.ts';
