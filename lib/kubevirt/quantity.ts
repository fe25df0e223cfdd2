/**
 * Kubernetes resource quantities (apimachinery pkg/api/resource quantity.go, suffix.go): the grammar
 *
 *   quantity ::= sign? number suffix?        sign ::= "+" | "-"
 *   number   ::= digits | digits "." digits? | "." digits
 *   suffix   ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | k | M | G | T | P | E | ("e" | "E") sign? digits
 *
 * with an exponent that fits an int32, and no white space. A JSON number is a quantity too. Values are kept
 * exact (sign × digits × 10^e × 2^b, in BigInt) until they are read: parseQuantity answers a double, rounded up
 * to a whole nano as apimachinery rounds; quantityValue answers Value() (rounded up, away from zero) and refuses
 * what is beyond 2^53 - 1 instead of rounding it. A caller that parses user input passes the field path, which
 * then starts the error message.
 */
import { KvError } from '../kernel/errors/errors.ts';
import { InvalidFieldError } from './field-error.ts';
import type { Quantity } from './schema/dsl.ts';

const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const GRAMMAR = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const MAX_EXPONENT = 2 ** 31 - 1;
const LOG10_2 = Math.log10(2);

/** sign × digits × 10^exp10 × 2^exp2, digits without leading or trailing zeros (0n for zero). */
export interface ExactQuantity {
  readonly negative: boolean;
  readonly digits: bigint;
  readonly exp10: number;
  readonly exp2: number;
}

function invalid(detail: string, field: string | undefined): KvError {
  return field === undefined ? new KvError('KV_ERR_INVALID', detail) : new InvalidFieldError(field, detail);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function shown(q: unknown): string {
  if (typeof q === 'string') return JSON.stringify(q);
  return typeof q === 'number' ? String(q) : kindOf(q);
}

function notAQuantity(q: Quantity): string {
  return `quantity ${shown(q)} is not a valid resource quantity`;
}

function suffixExponents(suffix: string): { exp10: number; exp2: number } | undefined {
  const binary = BINARY_EXPONENTS[suffix];
  if (binary !== undefined) return { exp10: 0, exp2: binary };
  const decimal = DECIMAL_EXPONENTS[suffix];
  if (decimal !== undefined) return { exp10: decimal, exp2: 0 };
  const exponent = Number(suffix.slice(1));
  return Math.abs(exponent) <= MAX_EXPONENT ? { exp10: exponent, exp2: 0 } : undefined;
}

/** The exact value of a string quantity, or undefined when it does not follow the grammar. */
function exactOf(text: string): ExactQuantity | undefined {
  const m = GRAMMAR.exec(text);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  const exponents = suffixExponents(suffix);
  if (exponents === undefined) return undefined;
  const significant = `${whole}${fraction}`.replace(/^0+/, '');
  const trimmed = significant.replace(/0+$/, '');
  if (trimmed === '') return { negative: false, digits: 0n, exp10: 0, exp2: 0 };
  return {
    negative: sign === '-',
    digits: BigInt(trimmed),
    exp10: exponents.exp10 - fraction.length + (significant.length - trimmed.length),
    exp2: exponents.exp2,
  };
}

function exact(q: Quantity, field: string | undefined): ExactQuantity {
  const text = typeof q === 'number' ? (Number.isFinite(q) ? String(q) : '') : q;
  const value = typeof q === 'number' || typeof q === 'string' ? exactOf(text) : undefined;
  if (value === undefined) throw invalid(notAQuantity(q), field);
  return value;
}

/** The exact value of a quantity (for comparisons and canonical text); throws as parseQuantity does. */
export function exactQuantity(q: Quantity, field?: string): ExactQuantity {
  return exact(q, field);
}

/** log10 of an upper bound of |value| (digits × 10^exp10 × 2^exp2 < 10^magnitude). */
function magnitude(v: ExactQuantity): number {
  return v.digits.toString().length + v.exp10 + v.exp2 * LOG10_2;
}

/** ⌈|value| / 10^-scale⌉ for a value whose magnitude allows it (|value| × 10^scale ≥ 10^-1 or so). */
function ceilScaled(v: ExactQuantity, scale: number): bigint {
  const numerator = v.digits * 2n ** BigInt(v.exp2);
  const shift = v.exp10 + scale;
  if (shift >= 0) return numerator * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return (numerator + divisor - 1n) / divisor;
}

/** The quantity as a number of base units (bytes, cores): "1Gi" → 1073741824, "500m" → 0.5, "1n" → 1e-9. */
export function parseQuantity(q: Quantity, field?: string): number {
  const v = exact(q, field);
  if (v.digits === 0n) return 0;
  const sign = v.negative ? -1 : 1;
  // Below a nano, apimachinery rounds up (away from zero) to whole nanos.
  if (v.exp10 < -9) {
    const nanos = magnitude(v) <= -9 ? 1n : ceilScaled(v, 9);
    return (sign * Number(nanos)) / 1e9;
  }
  const value = sign * Number(`${v.digits.toString()}e${String(v.exp10)}`) * 2 ** v.exp2;
  if (!Number.isFinite(value)) throw invalid(`quantity ${shown(q)} is too large`, field);
  return value;
}

/**
 * resource.Quantity.Value(): the value rounded up to a whole number, away from zero ("500m" → 1, "-500m" → -1).
 * Refuses a value beyond ±(2^53 - 1), which a number cannot hold exactly (byte sizes, vCPU counts).
 */
export function quantityValue(q: Quantity, field?: string): number {
  const v = exact(q, field);
  if (v.digits === 0n) return 0;
  const tooLarge = (): KvError =>
    invalid(`quantity ${shown(q)} is too large: at most ${String(Number.MAX_SAFE_INTEGER)}`, field);
  const m = magnitude(v);
  if (m > 17) throw tooLarge();
  const whole = m <= 0 ? 1n : ceilScaled(v, 0);
  if (whole > BigInt(Number.MAX_SAFE_INTEGER)) throw tooLarge();
  return (v.negative ? -1 : 1) * Number(whole);
}

/** Whether a quantity is below zero ("-1", "-500m"; "-0" is not). */
export function isNegativeQuantity(q: Quantity, field?: string): boolean {
  const v = exact(q, field);
  return v.negative && v.digits !== 0n;
}

/** Absent, or zero in any notation ("0", "0Gi", "-0.0e5"). */
export function isZeroQuantity(q: Quantity | undefined, field?: string): boolean {
  return q === undefined || exact(q, field).digits === 0n;
}

/**
 * Why a JSON value is not a quantity as the API server takes one (x-kubernetes-int-or-string: an integer, or a
 * string in the grammar above), or undefined when it is one.
 */
export function quantityProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return exactOf(value) === undefined ? notAQuantity(value) : undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return undefined;
  return `expected an integer or a quantity string, got ${kindOf(value)}`;
}

/** A whole number of bytes in the largest binary unit that divides it: 4294967296 → "4Gi", 1000 → "1000". */
export function formatBinaryQuantity(bytes: number): string {
  if (!Number.isSafeInteger(bytes)) {
    throw new KvError('KV_ERR_INTERNAL', `cannot format ${String(bytes)} as a whole binary quantity`);
  }
  for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
    const unit = 2 ** (BINARY_EXPONENTS[suffix] ?? 0);
    if (bytes !== 0 && bytes % unit === 0) return `${String(bytes / unit)}${suffix}`;
  }
  return String(bytes);
}
