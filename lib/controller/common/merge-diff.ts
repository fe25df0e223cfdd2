/**
 * JSON values compared and diffed the way a JSON merge patch (RFC 7386) needs: deepEqual ignores key order;
 * mergeDiff(from, to) is the smallest merge patch turning `from` into `to` (objects recurse, removed keys
 * become null, arrays and scalars are replaced whole), undefined when they are equal.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

/** The merge patch from `from` to `to`; undefined when nothing differs. */
export function mergeDiff(from: unknown, to: unknown): unknown {
  if (deepEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return to === undefined ? null : to;
  const patch: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const next = to[key];
    if (next === undefined) {
      if (from[key] !== undefined) patch[key] = null;
      continue;
    }
    const d = mergeDiff(from[key], next);
    if (d !== undefined) patch[key] = d;
  }
  return patch;
}

/** RFC 7386: patch applied to target (a new value; neither input is touched). */
export function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isObject(patch)) return structuredClone(patch) as T;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = applyMergePatch(out[k], v);
  }
  return out as T;
}
