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
export { apiGroup, apiGroupList, apiResourceList, rootPaths } from './discovery.ts';
export { handlerFailure, unexpectedReturnCode, type HandlerCall } from './vmi/handler-call.ts';
export { launcherPodSelectors, pickLauncherPod } from './lifecycle/launcher-pod.ts';
export { patchFailure, type VmPlan } from './patch-plan.ts';
export { badRequest, isRefusal, unmarshalFailed, type Refusal } from './refusal.ts';
export { matchRequest, type Route } from './routes.ts';
export { addResourceClaimRequest, removeResourceClaimRequest } from './claims/resource-claim-options.ts';
export { planVmiResourceClaim, planVmResourceClaim } from './claims/resource-claims.ts';
export { statusOf } from './status.ts';
export { planEvacuateCancel } from './lifecycle/evacuate-cancel.ts';
export { migrationCreateFailure, planMigrate } from './lifecycle/vm-migrate.ts';
export { planRestart } from './lifecycle/vm-restart.ts';
export { planStart } from './lifecycle/vm-start.ts';
export { planStop } from './lifecycle/vm-stop.ts';
export { planVmiCommand, type VmiCommand } from './vmi/vmi-commands.ts';
export { planVmiQuery, planVmiStream, type VmiQuery } from './vmi/vmi-reads.ts';
export { addVolumeRequest, removeVolumeRequest } from './volumes/volume-options.ts';
export { planVmiVolume, planVmVolume } from './volumes/volumes.ts';
