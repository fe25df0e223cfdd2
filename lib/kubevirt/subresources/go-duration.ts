/**
 * Go's time.ParseDuration (a metav1.Duration in JSON is its string form): an optional sign, then one or more
 * `<decimal><unit>` terms with units ns, us/µs/μs, ms, s, m, h; "0" alone is allowed. Returns nanoseconds, or
 * undefined when Go would refuse the text (including a result beyond int64). Pure.
 */
const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const TERM = /^(\d*)(?:\.(\d*))?([^\d.]+)/u;
const MAX_NS = 2 ** 63;

/** Nanoseconds of unsigned `<decimal><unit>` terms, or undefined. */
function sumTerms(text: string): number | undefined {
  let rest = text;
  let total = 0;
  while (rest !== '') {
    const m = TERM.exec(rest);
    if (m === null) return undefined;
    const [whole, int = '', frac = '', unitText = ''] = m;
    const unit = UNIT_NS[unitText];
    if ((int === '' && frac === '') || unit === undefined) return undefined;
    total += Number(`${int === '' ? '0' : int}.${frac}0`) * unit;
    rest = rest.slice(whole.length);
  }
  return total;
}

export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const rest = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  const total = sumTerms(rest);
  if (total === undefined || total > MAX_NS - (sign < 0 ? 0 : 1)) return undefined;
  return sign * total;
}
