/**
 * Quantities as KubeVirt's admitters read them (apimachinery resource.Quantity): the value after parsing
 * (rounded up, away from zero, to a whole nano; capped at 2^63 - 1), Value() and MilliValue() (rounded up),
 * Cmp, and String(), the canonical text the messages show ("1024Mi" → "1Gi", "0.5" → "500m", "1000" → "1k").
 * An absent quantity is zero ("0"), as ResourceList.Memory() answers for a missing key. Exact (BigInt). Pure.
 */
import { exactQuantity } from '../quantity.ts';
import type { Quantity } from '../schema/dsl.ts';

/** num / 10^scale with 0 ≤ scale ≤ 9, as apimachinery holds a parsed quantity. */
interface Parsed {
  readonly num: bigint;
  readonly scale: number;
  readonly format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

const NANO_SCALE = 9;
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL_SUFFIXES: Readonly<Record<number, string>> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** ⌈|n| / d⌉ with n's sign (inf.RoundUp rounds away from zero). */
function divideUp(n: bigint, d: bigint): bigint {
  const q = (abs(n) + d - 1n) / d;
  return n < 0n ? -q : q;
}

function formatOf(text: string): Parsed['format'] {
  if (/(Ki|Mi|Gi|Ti|Pi|Ei)$/.test(text)) return 'BinarySI';
  return /[eE][+-]?\d+$/.test(text) ? 'DecimalExponent' : 'DecimalSI';
}

function parsed(q: Quantity): Parsed {
  const v = exactQuantity(q);
  const mantissa = (v.negative ? -1n : 1n) * v.digits * 2n ** BigInt(v.exp2);
  let num = v.exp10 >= 0 ? mantissa * pow10(v.exp10) : mantissa;
  let scale = v.exp10 >= 0 ? 0 : -v.exp10;
  if (scale > NANO_SCALE) {
    num = divideUp(num, pow10(scale - NANO_SCALE));
    scale = NANO_SCALE;
  }
  if (abs(num) > INT64_MAX * pow10(scale)) {
    num = (num < 0n ? -INT64_MAX : INT64_MAX) * pow10(scale);
  }
  return { num, scale, format: formatOf(typeof q === 'number' ? String(q) : q) };
}

const ZERO: Parsed = { num: 0n, scale: 0, format: 'DecimalSI' };
const of = (q: Quantity | undefined): Parsed => (q === undefined ? ZERO : parsed(q));

/** a - b as a sign: -1, 0 or 1 (Quantity.Cmp). */
export function compareQuantities(a: Quantity | undefined, b: Quantity | undefined): number {
  const x = of(a);
  const y = of(b);
  const diff = x.num * pow10(y.scale) - y.num * pow10(x.scale);
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}

/** Quantity.Value(): rounded up to a whole number, away from zero. */
export function quantityInt(q: Quantity | undefined): bigint {
  const p = of(q);
  return divideUp(p.num, pow10(p.scale));
}

/** Quantity.MilliValue(): thousandths, rounded up, away from zero. */
export function quantityMilli(q: Quantity | undefined): bigint {
  const p = of(q);
  return p.scale <= 3 ? p.num * pow10(3 - p.scale) : divideUp(p.num, pow10(p.scale - 3));
}

function decimalText(p: Parsed): string {
  let mantissa = p.num;
  let exponent = -p.scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent -= 1;
  }
  if (p.format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DECIMAL_SUFFIXES[exponent] ?? ''}`;
}

function binaryText(whole: bigint): string {
  let mantissa = whole;
  let power = 0;
  while (mantissa % 1024n === 0n && power < BINARY_SUFFIXES.length - 1) {
    mantissa /= 1024n;
    power += 1;
  }
  return `${mantissa}${BINARY_SUFFIXES[power] ?? ''}`;
}

/** Quantity.String(): the canonical text ("0" for zero or absent). */
export function quantityText(q: Quantity | undefined): string {
  const p = of(q);
  if (p.num === 0n) return '0';
  const unit = pow10(p.scale);
  const whole = abs(p.num) < 1024n * unit || p.num % unit !== 0n ? undefined : p.num / unit;
  if (p.format !== 'BinarySI' || whole === undefined) {
    return decimalText(p.format === 'BinarySI' ? { ...p, format: 'DecimalSI' } : p);
  }
  return binaryText(whole);
}
