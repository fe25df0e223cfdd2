/** RFC 3339 with whole seconds, as metav1.Time serializes (the API server keeps CRD timestamps as sent). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined for an absent or unparsable value. */
export function parseTime(t: string | null | undefined): number | undefined {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
