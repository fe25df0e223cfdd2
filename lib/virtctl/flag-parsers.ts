/** Flag value parsers commander calls, and shared flag help. */
import { InvalidArgumentError } from 'commander';

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

export function port(value: string): number {
  const n = wholeNumber(value);
  if (n < 0 || n > 65535) throw new InvalidArgumentError('expected a port, 0 to 65535');
  return n;
}

export const DRY_RUN_HELP = 'perform a dry run: the server checks the request and changes nothing';

/** A port in the guest: 1 to 65535. */
export function guestPort(value: string): number {
  const n = wholeNumber(value);
  if (n < 1 || n > 65535) throw new InvalidArgumentError('expected a port, 1 to 65535');
  return n;
}
