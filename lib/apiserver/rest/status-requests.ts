/**
 * A VM's pending hotplug requests with one more taken in, as a status patch: status.volumeRequests for
 * addvolume/removevolume (kubevirt rest/volumes.go generateVMVolumeRequestPatch, tag v1.6.2) and the Deckhouse
 * fork's status.resourceClaimRequests for addresourceclaim/removeresourceclaim (deckhouse/3p-kubevirt
 * rest/resourceclaims.go generateVMResourceClaimRequestPatch, the same rules). An add is appended unless an add
 * or a remove of that name is pending; a remove drops the pending add of that name and is appended unless a
 * remove of that name is pending. The refusals are KubeVirt's texts with the kind's noun. Pure.
 */
import { listsPatch } from './list-patch.ts';
import type { JsonPatchOp } from './patch-plan.ts';

export interface RequestKind<R> {
  readonly path: '/status/volumeRequests' | '/status/resourceClaimRequests';
  /** What the texts call the thing requested: 'volume', 'resource claim'. */
  readonly noun: string;
  readonly addName: (r: R) => string | undefined;
  readonly removeName: (r: R) => string | undefined;
}

function withAdd<R>(kind: RequestKind<R>, current: readonly R[], req: R, name: string): R[] | string {
  const n = kind.noun;
  for (const r of current) {
    if (kind.addName(r) === name) return `add ${n} request for ${n} [${name}] already exists`;
    if (kind.removeName(r) === name) {
      return `unable to add ${n} since a remove ${n} request for ${n} [${name}] already exists and is still being processed`;
    }
  }
  return [...current, req];
}

function withRemove<R>(kind: RequestKind<R>, current: readonly R[], req: R, name: string): R[] | string {
  const n = kind.noun;
  if (current.some((r) => kind.removeName(r) === name)) {
    return `a remove ${n} request for ${n} [${name}] already exists and is still being processed`;
  }
  return [...current.filter((r) => kind.addName(r) !== name), req];
}

/** test + replace/add of the kind's status list with the request taken in, or the conflict text. */
export function statusRequestsPatch<R>(
  kind: RequestKind<R>,
  current: readonly R[] | undefined,
  req: R,
): JsonPatchOp[] | string {
  const addName = kind.addName(req);
  const next =
    addName !== undefined
      ? withAdd(kind, current ?? [], req, addName)
      : withRemove(kind, current ?? [], req, kind.removeName(req) ?? '');
  return typeof next === 'string' ? next : listsPatch([{ path: kind.path, old: current, next }]);
}
