/**
 * Go's time.Duration.String() (how virtctl writes a metav1.Duration such as --unfreeze-timeout into a body):
 * "5m0s", "1h0m0s", "1.5s", "300ms", "0s". Input in nanoseconds. Pure.
 */
const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const S = 1000n * MS;
const MIN = 60n * S;
const H = 60n * MIN;

/** v / 10^digits with the fraction's trailing zeros dropped. */
function decimal(v: bigint, digits: number): string {
  const unit = 10n ** BigInt(digits);
  const int = v / unit;
  const frac = (v % unit).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? int.toString() : `${int.toString()}.${frac}`;
}

export function formatGoDuration(nanoseconds: number): string {
  const n = BigInt(Math.trunc(nanoseconds));
  const sign = n < 0n ? '-' : '';
  const u = n < 0n ? -n : n;
  if (u === 0n) return '0s';
  if (u < US) return `${sign}${u.toString()}ns`;
  if (u < MS) return `${sign}${decimal(u, 3)}µs`;
  if (u < S) return `${sign}${decimal(u, 6)}ms`;
  const hours = u / H;
  const minutes = (u % H) / MIN;
  const seconds = `${decimal(u % MIN, 9)}s`;
  if (hours > 0n) return `${sign}${hours.toString()}h${minutes.toString()}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes.toString()}m${seconds}`;
  return `${sign}${seconds}`;
}
