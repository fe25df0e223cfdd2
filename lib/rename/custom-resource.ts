/** Custom resources (and their lists) with rules: apiVersion, kind, and the apiVersion of managedFields entries. */
import type { RewriteContext } from './context.ts';
import { rewriteVersionKindRef } from './gvk.ts';
import { mapRecords, updateArray, updateIn, updateString, type JsonRecord } from './json.ts';
import { rewriteApiVersion } from './names.ts';

export function rewriteCustomResource(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = rewriteVersionKindRef(obj, ctx);
  if (out === obj) return obj;
  return updateIn(out, ['metadata'], (meta) =>
    updateArray(meta, 'managedFields', (fields) =>
      mapRecords(fields, (f) => updateString(f, 'apiVersion', (av) => rewriteApiVersion(av, ctx))),
    ),
  );
}
