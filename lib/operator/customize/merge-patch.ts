/**
 * JSON Merge Patch (RFC 7386), as KubeVirt applies a `merge` customizeComponents patch (patches.go
 * applyPatch, through evanphx/json-patch MergePatch): objects merge member by member, null removes a member,
 * anything else (arrays included) replaces. As in that library, a value that replaces something other than
 * an object loses its null members at any depth, inside arrays too (RFC 7386 keeps those inside arrays).
 * A patch for an object must itself be an object.
 */
import { customizeError, isObject, type JsonObject, withoutNulls } from './json.ts';

/** MergePatch(target, patch) for an object patch, as a new object. */
function mergeObject(target: unknown, patch: JsonObject): JsonObject {
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    if (value === null) Reflect.deleteProperty(out, key);
    else if (isObject(value)) out[key] = mergeObject(current, value);
    else out[key] = isObject(current) ? structuredClone(value) : withoutNulls(value);
  }
  return out;
}

/** The document with the merge patch applied; doc is not touched. */
export function applyMergePatch(doc: JsonObject, patch: unknown): JsonObject {
  if (!isObject(patch)) throw customizeError('a merge patch of an object is a JSON object');
  return mergeObject(structuredClone(doc), patch);
}
