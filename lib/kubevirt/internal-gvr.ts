/**
 * The stored names of the kubevirt.io resources (internal.virtualization.deckhouse.io/v1,
 * InternalVirtualization* kinds), derived from gvr.ts through the rewriter's KubeVirt rules so no internal
 * name is written by hand.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { GroupVersionResource } from '../kernel/kube/types.ts';
import {
  buildRuleIndex,
  KUBEVIRT_REWRITE_RULES,
  renameContext,
  rewriteDocument,
  type RewriteContext,
} from '../rename/index.ts';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from './gvr.ts';

/** Rename context of the KubeVirt rule set (kubevirt.io → internal names). */
export const KUBEVIRT_RENAME: RewriteContext = renameContext(buildRuleIndex(KUBEVIRT_REWRITE_RULES));

interface CrdNames {
  spec?: { group?: unknown; names?: { kind?: unknown; plural?: unknown } };
}

/** The stored twin of a kubevirt.io resource, as the rewriter renames it. */
export function internalGvr(
  gvr: GroupVersionResource,
  ctx: RewriteContext = KUBEVIRT_RENAME,
): GroupVersionResource {
  const stub = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${gvr.resource}.${gvr.group}` },
    spec: { group: gvr.group, names: { kind: gvr.kind, plural: gvr.resource } },
  };
  const renamed = rewriteDocument(stub, ctx) as CrdNames;
  const { group } = renamed.spec ?? {};
  const { kind, plural } = renamed.spec?.names ?? {};
  if (
    typeof group !== 'string' ||
    typeof kind !== 'string' ||
    typeof plural !== 'string' ||
    group === gvr.group
  ) {
    throw new KvError('KV_ERR_CONFIG', `no rewrite rule renames ${gvr.resource}.${gvr.group}`);
  }
  return Object.freeze({ group, version: gvr.version, resource: plural, kind, namespaced: gvr.namespaced });
}

export const INTERNAL_VIRTUAL_MACHINES = internalGvr(VIRTUAL_MACHINES);
export const INTERNAL_VIRTUAL_MACHINE_INSTANCES = internalGvr(VIRTUAL_MACHINE_INSTANCES);
export const INTERNAL_KUBEVIRTS = internalGvr(KUBEVIRTS);
export const INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS = internalGvr(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS);
