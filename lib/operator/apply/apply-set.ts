/**
 * Brings the cluster to the install set: each object that the live one does not already cover is applied with
 * server-side apply under the operator's field manager (forced: the operator owns these fields, as KubeVirt's
 * apply step replaces what someone changed), in creation order; what the install labelled earlier and no longer
 * renders is deleted, in reverse order (pkg/virt-operator/resource/apply/reconcile.go, and its delete of
 * objects an older install strategy had). Objects are given and compared as stored (renamed).
 */
import { isNotFound } from '../../kernel/errors/errors.ts';
import type {
  DeleteOptions,
  GroupVersionResource,
  KubeObject,
  PatchOptions,
} from '../../kernel/kube/types.ts';
import type { Rendered } from '../config/install-config.ts';
import { OPERATOR_FIELD_MANAGER } from '../generate/names.ts';
import { covers } from './covers.ts';
import { apiVersionOf, creationRank, installedKind } from './kinds.ts';

/** The writes the apply step makes (a KubeClient does them). */
export interface ApplyClient {
  patch(gvr: GroupVersionResource, name: string, patch: unknown, opts: PatchOptions): Promise<unknown>;
  delete(gvr: GroupVersionResource, name: string, opts?: DeleteOptions): Promise<void>;
}

export interface ApplySetDeps {
  client: ApplyClient;
  /** The live object from the caches, as stored. */
  live(gvr: GroupVersionResource, namespace: string | undefined, name: string): KubeObject | undefined;
}

/** `Kind namespace/name` (or `Kind name`), for logs, events and status messages. */
export function describe(o: KubeObject): string {
  const ns = o.metadata.namespace;
  return `${o.kind ?? '?'} ${ns === undefined ? '' : `${ns}/`}${o.metadata.name ?? ''}`;
}

const byRank = (a: KubeObject, b: KubeObject): number =>
  creationRank(a.apiVersion, a.kind) - creationRank(b.apiVersion, b.kind);

/** Applies what differs; returns what was applied. */
export async function applySet(objects: readonly Rendered[], deps: ApplySetDeps): Promise<string[]> {
  const applied: string[] = [];
  for (const obj of [...objects].sort(byRank)) {
    const gvr = installedKind(obj.apiVersion, obj.kind);
    const { name = '', namespace } = obj.metadata;
    if (covers(deps.live(gvr, namespace, name), obj)) continue;
    await deps.client.patch(gvr, name, obj, {
      type: 'apply',
      force: true,
      fieldManager: OPERATOR_FIELD_MANAGER,
      ...(namespace !== undefined && { namespace }),
    });
    applied.push(describe(obj));
  }
  return applied;
}

const key = (o: KubeObject): string =>
  `${o.apiVersion ?? ''}|${o.kind ?? ''}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;

/** Deletes the labelled live objects the install set does not hold; returns what was deleted. */
export async function pruneSet(
  objects: readonly Rendered[],
  live: readonly { gvr: GroupVersionResource; obj: KubeObject }[],
  client: Pick<ApplyClient, 'delete'>,
): Promise<string[]> {
  const wanted = new Set(objects.map(key));
  const stale = live.filter(
    ({ gvr, obj }) => !wanted.has(key({ ...obj, apiVersion: apiVersionOf(gvr), kind: gvr.kind })),
  );
  return deleteAll(stale, client);
}

/** Deletes these objects in reverse creation order (a missing one counts as deleted); returns what was asked. */
export async function deleteAll(
  objects: readonly { gvr: GroupVersionResource; obj: KubeObject }[],
  client: Pick<ApplyClient, 'delete'>,
): Promise<string[]> {
  const order = [...objects].sort(
    (a, b) => creationRank(apiVersionOf(b.gvr), b.gvr.kind) - creationRank(apiVersionOf(a.gvr), a.gvr.kind),
  );
  const deleted: string[] = [];
  for (const { gvr, obj } of order) {
    const { name = '', namespace } = obj.metadata;
    await client
      .delete(gvr, name, { propagationPolicy: 'Background', ...(namespace !== undefined && { namespace }) })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    deleted.push(describe({ ...obj, kind: gvr.kind }));
  }
  return deleted;
}
