/**
 * Kubernetes resource quantities ("1Gi", "500m", "2", "1e3", 1024): parsing to a number and the binary
 * formatting the API server uses for byte sizes. Numbers are IEEE doubles: exact for whole byte counts up to
 * 8 PiB, which covers every memory size a VM has.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { Quantity } from './schema/dsl.ts';

const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const DECIMAL: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

function multiplier(suffix: string): number | undefined {
  if (/^[eE]/.test(suffix)) return 10 ** Number(suffix.slice(1));
  return BINARY[suffix] ?? DECIMAL[suffix];
}

/** The quantity as a number of base units (bytes, cores): "1Gi" → 1073741824, "500m" → 0.5. */
export function parseQuantity(q: Quantity): number {
  if (typeof q === 'number') return q;
  const m = QUANTITY.exec(q.trim());
  const mult = m === null ? undefined : multiplier(m[2] ?? '');
  if (m === null || mult === undefined) {
    throw new KvError('KV_ERR_DECODE', `quantity ${JSON.stringify(q)} is not a valid resource quantity`);
  }
  return Number(m[1]) * mult;
}

/** Like resource.Quantity.Value(): the value rounded up to a whole number ("500m" → 1). */
export function quantityValue(q: Quantity): number {
  const v = parseQuantity(q);
  const nearest = Math.round(v);
  // Decimal suffixes leave float noise ("300m" × 10): a value within 1e-9 of a whole number is that number.
  const whole = Math.abs(v - nearest) < 1e-9 ? nearest : Math.ceil(v);
  return whole === 0 ? 0 : whole;
}

export function isZeroQuantity(q: Quantity | undefined): boolean {
  return q === undefined || parseQuantity(q) === 0;
}

/** A whole number of bytes in the largest binary unit that divides it: 4294967296 → "4Gi", 1000 → "1000". */
export function formatBinaryQuantity(bytes: number): string {
  if (!Number.isSafeInteger(bytes)) {
    throw new KvError('KV_ERR_INTERNAL', `cannot format ${bytes} as a whole binary quantity`);
  }
  for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
    const unit = BINARY[suffix] ?? 1;
    if (bytes !== 0 && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}
