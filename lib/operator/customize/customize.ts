/**
 * `spec.customizeComponents` applied to the generated objects, as KubeVirt's Customizer does
 * (patches.go NewCustomizer, Apply, GenericApplyPatches): only Deployments, DaemonSets, Services, webhook
 * configurations, APIServices and Secrets are customized; each gets the patches whose resourceType and
 * resourceName match its kind and name (case-insensitively, `*` matching any), shortest patch text first, then
 * its component's flags, then the customizer-identifier annotation. Other kinds are returned unchanged, and a
 * patch that matches nothing is no error (it is not even parsed).
 *
 * KubeVirt decodes each result into the kind's Go type, which drops unknown fields and nulls; here results
 * stay plain JSON, so what a patch writes reaches the API server as written.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { ComponentPatch, InstallConfig, Rendered } from '../config/install-config.ts';
import { withFlags } from './flags.ts';
import { byPatchLength, CUSTOMIZER_ANNOTATION, customizerHash } from './identifier.ts';
import { customizeError, isObject, type JsonObject } from './json.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import { applyStrategicMerge } from './strategic-merge.ts';

/** The kinds of KubeVirt's install strategy that Customizer.Apply goes through. */
const CUSTOMIZED = new Set([
  'Deployment',
  'DaemonSet',
  'Service',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'Secret',
]);

interface Numbered {
  readonly patch: ComponentPatch;
  /** Its place in spec.customizeComponents.patches, for messages. */
  readonly index: number;
}

const matches = (value: string, key: string): boolean =>
  value === '*' || value.toLowerCase() === key.toLowerCase();

function isRendered(v: unknown): v is Rendered {
  return (
    isObject(v) &&
    typeof v['apiVersion'] === 'string' &&
    typeof v['kind'] === 'string' &&
    isObject(v['metadata'])
  );
}

function patched(doc: JsonObject, kind: string, p: ComponentPatch): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(p.patch);
  } catch (err) {
    throw customizeError(
      `the patch is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
      err,
    );
  }
  switch (p.type) {
    case 'json':
      return applyJsonPatch(doc, parsed);
    case 'merge':
      return applyMergePatch(doc, parsed);
    case 'strategic':
      return applyStrategicMerge(doc, parsed, kind);
  }
}

function applyPatch(doc: Rendered, { patch: p, index }: Numbered, target: string): Rendered {
  const which = `spec.customizeComponents.patches[${String(index)}] (${p.type}, ${p.resourceType} ${p.resourceName})`;
  try {
    const out = patched(doc, doc.kind, p);
    if (!isRendered(out)) throw customizeError('the result has no apiVersion, kind or metadata');
    return out;
  } catch (err) {
    if (!(err instanceof KvError)) throw err;
    throw customizeError(`${which} on ${target}: ${err.message}`, err);
  }
}

function customizeOne(
  obj: Rendered,
  patches: readonly Numbered[],
  c: Pick<InstallConfig, 'flags'>,
  hash: string,
): Rendered {
  const kind = obj.kind;
  const name = obj.metadata.name ?? '';
  let doc = structuredClone(obj);
  for (const n of patches) {
    if (matches(n.patch.resourceType, kind) && matches(n.patch.resourceName, name)) {
      doc = applyPatch(doc, n, `${kind} ${name}`);
    }
  }
  const out = withFlags(doc, { kind, name }, c.flags);
  out.metadata.annotations = { ...out.metadata.annotations, [CUSTOMIZER_ANNOTATION]: hash };
  return out;
}

/** The objects with the customizations applied, as new objects (the inputs are not touched). */
export function customize(
  objects: readonly Rendered[],
  c: Pick<InstallConfig, 'patches' | 'flags'>,
): Rendered[] {
  const hash = customizerHash(c);
  const patches = byPatchLength(c.patches.map((patch, index) => ({ patch, index })));
  return objects.map((o) =>
    CUSTOMIZED.has(o.kind) ? customizeOne(o, patches, c, hash) : structuredClone(o),
  );
}
