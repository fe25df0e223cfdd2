/**
 * An AdmissionReview as kube-apiserver sends it to the operator, with the names the cluster stores
 * (InternalVirtualizationKubeVirt in internal.virtualization.deckhouse.io), read back into kubevirt.io names
 * before any admitter sees it: lib/rename/admission-review.ts in the restore direction, what the rewriter's
 * webhook proxy does on the wire, done in process. Also the request's identity for the log line (never the
 * objects). A body that is not a JSON object is left as it is, for parseReview to refuse with 400. Pure.
 */
import { rewriteAdmissionReview } from '../../rename/admission-review.ts';
import { restoreContext } from '../../rename/context.ts';
import { getRecord, getString, isRecord, type JsonRecord } from '../../rename/json.ts';
import type { RuleIndex } from '../../rename/rules/rule-index.ts';

export interface RestoredReview {
  /** The review with kubevirt.io names, as text. */
  readonly text: string;
  /** What the log line says of the request: uid, operation, kind, namespace and name, where present. */
  readonly fields: Readonly<Record<string, string>>;
}

const IDENTITY = ['uid', 'operation', 'namespace', 'name'] as const;

function fieldsOf(review: JsonRecord): Record<string, string> {
  const request = getRecord(review, 'request');
  if (request === undefined) return {};
  const out: Record<string, string> = {};
  for (const key of IDENTITY) {
    const v = getString(request, key);
    if (v !== undefined) out[key] = v;
  }
  const kind = getString(getRecord(request, 'kind') ?? {}, 'kind');
  if (kind !== undefined) out['kind'] = kind;
  return out;
}

export function restoreReview(body: string, index: RuleIndex): RestoredReview {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { text: body, fields: {} };
  }
  if (!isRecord(doc)) return { text: body, fields: {} };
  const restored = rewriteAdmissionReview(doc, restoreContext(index));
  return { text: restored === doc ? body : JSON.stringify(restored), fields: fieldsOf(restored) };
}
