/**
 * apimachinery's equality.Semantic.DeepEqual over JSON values: deep equality where null is absent and an absent
 * list and an empty one are equal (Go's nil and empty slices). Without Go's types, a zero value written out (false, "", 0) is
 * not taken for an absent field, and quantities compare as written.
 */

const isEmptyList = (v: unknown): boolean => v === undefined || (Array.isArray(v) && v.length === 0);

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
}

function recordsEqual(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => semanticEqual(a[k], b[k]));
}

export function semanticEqual(x: unknown, y: unknown): boolean {
  const a = x ?? undefined;
  const b = y ?? undefined;
  if (a === b) return true;
  if (isEmptyList(a) && isEmptyList(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return arraysEqual(a, b);
  if (isRecord(a) && isRecord(b)) return recordsEqual(a, b);
  return false;
}
