/**
 * Builds the CRDs: first the kubevirt.io CRD from a definition and its schema, then the stored twin by passing
 * it through the rewriter's rename (so every internal name comes from the rewrite rules).
 */
import { KvError } from '../../../kernel/errors/errors.ts';
import type { KubeObject } from '../../../kernel/kube/types.ts';
import { rewriteDocument, type RewriteContext } from '../../../rename/index.ts';
import { KUBEVIRT_RENAME } from '../../../kubevirt/internal-gvr.ts';
import { toOpenApi, type JsonSchemaProps } from '../../../kubevirt/schema/openapi.ts';
import { CRD_DEFINITIONS, type CrdDefinition, type PrinterColumn } from './definitions.ts';

interface CrdNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JsonSchemaProps };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: CrdNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
  };
  status?: {
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    acceptedNames?: CrdNames;
  };
}

/** The CRD as KubeVirt names it (kubevirt.io, VirtualMachine, category all). */
export function buildKubevirtCrd(def: CrdDefinition): CustomResourceDefinition {
  const { group, version, resource, kind, namespaced } = def.gvr;
  const crdVersion: CrdVersion = {
    name: version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: toOpenApi(def.schema) },
    ...(def.statusSubresource && { subresources: { status: {} } }),
    additionalPrinterColumns: def.printerColumns.map((c) => ({ ...c })),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource}.${group}` },
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural: resource,
        singular: kind.toLowerCase(),
        shortNames: [...def.shortNames],
        categories: ['all'],
      },
      scope: namespaced ? 'Namespaced' : 'Cluster',
      versions: [crdVersion],
    },
  };
}

/** The stored CRD: the kubevirt.io CRD renamed by the rewrite rules. */
export function buildInternalCrd(
  def: CrdDefinition,
  ctx: RewriteContext = KUBEVIRT_RENAME,
): CustomResourceDefinition {
  const original = buildKubevirtCrd(def);
  const renamed = rewriteDocument(original, ctx) as CustomResourceDefinition;
  if (renamed.spec.group === original.spec.group) {
    throw new KvError('KV_ERR_CONFIG', `no rewrite rule renames the CRD ${original.metadata.name ?? ''}`);
  }
  return renamed;
}

export function buildInternalCrds(ctx: RewriteContext = KUBEVIRT_RENAME): CustomResourceDefinition[] {
  return CRD_DEFINITIONS.map((def) => buildInternalCrd(def, ctx));
}
