/**
 * Whether a live object already holds everything the operator would apply (KubeVirt's apply step compares the
 * fields it owns before it patches: pkg/virt-operator/resource/apply/reconcile.go). Every field the desired
 * object sets must be equal in the live one; what the API server added (defaults, uid, status) is ignored.
 * Lists must have the same length and cover each other item by item, so an item removed or added by hand is
 * seen. An empty map or list the server drops counts as equal to an absent one. Pure.
 */
type Json = unknown;

const isRecord = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: Json): boolean =>
  (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);

export function covers(live: Json, desired: Json): boolean {
  if (live === undefined && isEmpty(desired)) return true;
  if (Array.isArray(desired))
    return (
      Array.isArray(live) && live.length === desired.length && desired.every((d, i) => covers(live[i], d))
    );
  if (isRecord(desired))
    return isRecord(live) && Object.entries(desired).every(([k, d]) => d === undefined || covers(live[k], d));
  return live === desired;
}
