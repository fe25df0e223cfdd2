/**
 * One admission call: the path picks the admitter (KubeVirt's webhook paths, `lib/kubevirt/webhooks.ts`), the
 * body is parsed (parseReview), the object is checked to be an object with metadata and spec of the kind the
 * path expects, and the admitter's verdict becomes the AdmissionReview answer. An unknown path is 404, a bad
 * body a 400 Status; an admitter that throws on an object it did not expect answers allowed=false with 400
 * and the reason, never a crash of the server. Only the admitters that look objects up do IO.
 */
import { errorMessage, newStatus, type Status } from '../../kernel/errors/errors.ts';
import {
  parseReview,
  reviewResponse,
  type AdmissionRequest,
  type AdmissionReviewResponse,
  type Verdict,
} from './review.ts';

export interface Admitter {
  /** The kind the object must be (kubevirt.io names: the review arrives restored). */
  readonly kind: string;
  /** The object has no spec to check for (an Eviction). */
  readonly specless?: true;
  admit(req: AdmissionRequest): Verdict | Promise<Verdict>;
}

export type AdmissionAnswer =
  | { readonly code: 200; readonly body: AdmissionReviewResponse }
  | { readonly code: 400 | 404; readonly body: Status };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function shapeProblem(req: AdmissionRequest, { kind, specless }: Admitter): string | undefined {
  for (const key of ['object', 'oldObject'] as const) {
    const o = req[key];
    if (o === undefined || o === null) continue;
    if (!isObject(o['metadata'])) return `request.${key}.metadata must be an object`;
    if (o['kind'] !== undefined && o['kind'] !== kind)
      return `request.${key} is a ${JSON.stringify(o['kind'])}, not a ${kind}`;
    if (req.operation !== 'DELETE' && specless !== true && !isObject(o['spec']))
      return `request.${key}.spec must be an object`;
  }
  return undefined;
}

export async function handleAdmission(
  admitters: Readonly<Record<string, Admitter>>,
  path: string,
  body: string,
): Promise<AdmissionAnswer> {
  const admitter = Object.hasOwn(admitters, path) ? admitters[path] : undefined;
  if (admitter === undefined) return { code: 404, body: newStatus(404, `no admission webhook at ${path}`) };
  const parsed = parseReview(body);
  if (!parsed.ok) return { code: 400, body: parsed.status };
  const review = parsed.review;
  const problem = shapeProblem(review.request, admitter);
  let verdict: Verdict;
  if (problem !== undefined) verdict = { allowed: false, code: 400, message: problem };
  else {
    try {
      verdict = await admitter.admit(review.request);
    } catch (err) {
      verdict = {
        allowed: false,
        code: 400,
        message: `cannot admit this ${admitter.kind}: ${errorMessage(err)}`,
      };
    }
  }
  return { code: 200, body: reviewResponse(review, verdict) };
}
