/**
 * The way in: a client's JSON body renamed for the API server. PATCH bodies are rewritten by their patch type
 * (from Content-Type) against the target's kind; anything else as a document. Server-side apply YAML is
 * parsed and sent on as JSON (JSON is YAML). A body that does not parse is the client's error (400).
 */
import { parse as parseYaml } from 'yaml';
import { KvError, errorMessage } from '../../kernel/errors/errors.ts';
import type { RewriteContext } from '../../rename/context.ts';
import { rewriteDocument } from '../../rename/document.ts';
import { patchTargetOf } from '../../rename/patch-target.ts';
import { rewritePatch, type PatchType } from '../../rename/patch.ts';
import type { ApiTarget } from '../../rename/target.ts';

const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['application/json-patch+json', 'json'],
  ['application/merge-patch+json', 'merge'],
  ['application/strategic-merge-patch+json', 'strategic'],
  ['application/apply-patch+yaml', 'apply'],
]);

function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return PATCH_TYPES.get(media);
}

/** Thrown for a body that is not valid JSON (or YAML for apply patches): the client gets a 400. */
export class BadBodyError extends KvError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('KV_ERR_DECODE', message, options);
  }
}

export function parseBody(text: string, patchType: PatchType | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (patchType !== 'apply')
      throw new BadBodyError(`the request body is not valid JSON: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new BadBodyError(`the request body is not valid YAML: ${errorMessage(err)}`, { cause: err });
  }
}

export interface RenameBodyInput {
  readonly body: Buffer;
  readonly method: string;
  readonly contentType: string | undefined;
  /** The request as the client sent it (original names). */
  readonly target: ApiTarget;
  /** The rename context. */
  readonly ctx: RewriteContext;
}

/** The renamed body; the very same buffer when nothing changed. Throws BadBodyError. */
export function renameRequestBody(renameBodyInput: RenameBodyInput): Buffer {
  const patchType = renameBodyInput.method === 'PATCH' ? patchTypeOf(renameBodyInput.contentType) : undefined;
  const text = renameBodyInput.body.toString('utf8');
  const doc = parseBody(text, patchType);
  const out =
    patchType === undefined
      ? rewriteDocument(doc, renameBodyInput.ctx)
      : rewritePatch(doc, patchType, patchTargetOf(renameBodyInput.target, renameBodyInput.ctx.rules), renameBodyInput.ctx);
  return out === doc ? renameBodyInput.body : Buffer.from(JSON.stringify(out));
}
