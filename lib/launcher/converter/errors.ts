/**
 * Why a VMI cannot be turned into a domain, naming the VMI field at fault (KubeVirt field-path style:
 * `spec.domain.devices.disks[1].name`), so the launcher can answer `{success: false, message}` with it.
 */
import { InvalidFieldError } from '../../kubevirt/index.ts';

/** invalid: the spec is wrong; unsupported: valid KubeVirt, but this converter does not render it. */
export type ConversionErrorReason = 'invalid' | 'unsupported';

/** KV_ERR_INVALID with the message `field: detail`. */
export class ConversionError extends InvalidFieldError {
  readonly reason: ConversionErrorReason;
  constructor(field: string, detail: string, reason: ConversionErrorReason = 'invalid') {
    super(field, detail);
    this.reason = reason;
  }
}

export function isConversionError(err: unknown): err is ConversionError {
  return err instanceof ConversionError;
}

/**
 * Runs `fn`, turning any error it throws into a ConversionError: one that names a field keeps that field
 * (a quantity parsed with its path), any other is put at `field`.
 */
export function atField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    if (err instanceof InvalidFieldError) throw new ConversionError(err.field, err.detail);
    throw new ConversionError(field, err instanceof Error ? err.message : String(err));
  }
}
