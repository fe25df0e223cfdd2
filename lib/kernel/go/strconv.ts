/**
 * The bits of Go's strconv and time packages whose output KubeVirt puts in its messages (admission refusals, the
 * handler's launcher errors): `%q` of a string (strconv.Quote), strconv.ParseFloat(s, 64) with its error text, and
 * the text of time.ParseDuration's errors. Pure.
 */

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function escapeRune(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  if (PRINTABLE.test(ch)) return ch;
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return `\\x${hex(cp, 2)}`;
  return cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
}

/** strconv.Quote (fmt's %q of a string). */
export function goQuote(s: string): string {
  return `"${Array.from(s, escapeRune).join('')}"`;
}

/** The time package's own quoting in its errors: `"` and `\` escaped, control and non-ASCII bytes as \xNN. */
export function timeQuote(s: string): string {
  const body = Array.from(s)
    .map((ch) => {
      const cp = ch.codePointAt(0) ?? 0;
      if (cp >= 0x20 && cp < 0x80) return ch === '"' || ch === '\\' ? `\\${ch}` : ch;
      return [...Buffer.from(ch, 'utf8')].map((b) => `\\x${hex(b, 2)}`).join('');
    })
    .join('');
  return `"${body}"`;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;
const SPECIAL = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

function hexValue(m: RegExpExecArray): number | undefined {
  const [, sign = '', int = '', frac = '', exp = '0'] = m;
  if (int === '' && frac === '') return undefined;
  const mantissa = Number.parseInt(`${int}${frac}` || '0', 16) / 16 ** frac.length;
  return (sign === '-' ? -1 : 1) * mantissa * 2 ** Number(exp);
}

/** strconv's underscoreOK: each `_` sits between digits (a base prefix counts as one). */
function underscoresOk(s: string): boolean {
  const body = s.replace(/^[+-]/, '');
  const prefixed = /^0[xXbBoO]/.test(body);
  const digit = /^0[xX]/.test(body) ? /[0-9a-fA-F]/ : /[0-9]/;
  let saw = prefixed ? '0' : '^';
  for (const ch of body.slice(prefixed ? 2 : 0)) {
    if (digit.test(ch)) saw = '0';
    else if (ch === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else if (saw === '_') return false;
    else saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseFloat(s, 64): the value, or Go's error text (invalid syntax, or out of range past ±MaxFloat64). */
export function parseGoFloat(s: string): { value: number } | { error: string } {
  const fail = (why: string): { error: string } => ({
    error: `strconv.ParseFloat: parsing ${goQuote(s)}: ${why}`,
  });
  if (SPECIAL.test(s)) {
    const lower = s.toLowerCase();
    return { value: lower === 'nan' ? Number.NaN : lower.startsWith('-') ? -Infinity : Infinity };
  }
  if (s.includes('_') && !underscoresOk(s)) return fail('invalid syntax');
  const plain = s.replaceAll('_', '');
  const hexMatch = HEX.exec(plain);
  const value = DECIMAL.test(plain) ? Number(plain) : hexMatch !== null ? hexValue(hexMatch) : undefined;
  if (value === undefined) return fail('invalid syntax');
  return Number.isFinite(value) ? { value } : fail('value out of range');
}

const UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);
const TERM = /^(\d*)(?:\.(\d*))?([^\d.]*)/u;

/**
 * The error time.ParseDuration gives for a text it refuses: a unit missing or unknown, else invalid (also for
 * a value past int64). Called only for a text parseGoDuration refused.
 */
export function goDurationError(orig: string): string {
  let rest = orig.replace(/^[+-]/, '');
  while (rest !== '' && rest !== '0') {
    const [whole = '', int = '', frac, unit = ''] = TERM.exec(rest) ?? [];
    if (int === '' && (frac ?? '') === '') break;
    if (unit === '') return `time: missing unit in duration ${timeQuote(orig)}`;
    if (!UNITS.has(unit)) return `time: unknown unit ${timeQuote(unit)} in duration ${timeQuote(orig)}`;
    rest = rest.slice(whole.length);
  }
  return `time: invalid duration ${timeQuote(orig)}`;
}
