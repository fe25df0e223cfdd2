/** Events: the object an event is about (core/v1 involvedObject; events.k8s.io regarding and related). */
import type { RewriteContext } from './context.ts';
import { rewriteVersionKindRef } from './gvk.ts';
import { updateRecord, type JsonRecord } from './json.ts';

export function rewriteEvent(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateRecord(obj, 'involvedObject', (ref) => rewriteVersionKindRef(ref, ctx));
  out = updateRecord(out, 'regarding', (ref) => rewriteVersionKindRef(ref, ctx));
  return updateRecord(out, 'related', (ref) => rewriteVersionKindRef(ref, ctx));
}
