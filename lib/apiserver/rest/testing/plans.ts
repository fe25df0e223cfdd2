/** Expected plans for the start/stop/restart and volume tables. */
import type { JsonPatchOp, PatchPlan, PatchTarget, VmPlan } from '../patch-plan.ts';
import type { Refusal } from '../refusal.ts';

const TEST_CONFLICT = { kind: 'test-conflict', resource: 'virtualmachine' } as const;

export function patchOf(
  target: PatchTarget,
  patch: JsonPatchOp[],
  dryRun?: string[],
  onError: PatchPlan['onError'] = TEST_CONFLICT,
): PatchPlan {
  return { target, type: 'json', patch, ...(dryRun && { dryRun }), onError };
}

export function accepted(...patches: PatchPlan[]): VmPlan {
  return { patches, then: { status: 202 } };
}

export function refusedAfter(then: Refusal, ...patches: PatchPlan[]): VmPlan {
  return { patches, then };
}

/** test + add of the state change requests on a status that has none. */
export function addRequests(...requests: unknown[]): JsonPatchOp[] {
  return [
    { op: 'test', path: '/status/stateChangeRequests', value: null },
    { op: 'add', path: '/status/stateChangeRequests', value: requests },
  ];
}
