/**
 * Why a VMI cannot be turned into a domain, naming the VMI field at fault (KubeVirt field-path style:
 * `spec.domain.devices.disks[1].name`), so the launcher can answer `{success: false, message}` with it.
 */
import { KvError } from '../../kernel/errors/errors.ts';

/** invalid: the spec is wrong; unsupported: valid KubeVirt, but this converter does not render it. */
export type ConversionErrorReason = 'invalid' | 'unsupported';

export class ConversionError extends KvError {
  readonly field: string;
  readonly reason: ConversionErrorReason;
  constructor(field: string, detail: string, reason: ConversionErrorReason = 'invalid') {
    super('KV_ERR_INVALID', `${field}: ${detail}`);
    this.field = field;
    this.reason = reason;
  }
}

export function isConversionError(err: unknown): err is ConversionError {
  return err instanceof ConversionError;
}

/** Runs `fn`, turning any non-conversion error it throws (a bad quantity, ...) into one naming `field`. */
export function atField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    throw new ConversionError(field, err instanceof Error ? err.message : String(err));
  }
}
