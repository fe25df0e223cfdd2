/**
 * A problem with one field of an object, named by its path in Kubernetes field-path style
 * (`spec.domain.devices.disks[0].name`), as data (FieldError) and as an exception (InvalidFieldError).
 */
import { KvError } from '../kernel/errors/errors.ts';

export interface FieldError {
  /** The field path; '' for the object itself. */
  readonly field: string;
  readonly detail: string;
}

/** `field: detail`, or the detail alone for the object itself. */
export function fieldMessage(e: FieldError): string {
  return e.field === '' ? e.detail : `${e.field}: ${e.detail}`;
}

/** One invalid field: `code` KV_ERR_INVALID, the message `field: detail`. */
export class InvalidFieldError extends KvError implements FieldError {
  readonly field: string;
  readonly detail: string;
  constructor(field: string, detail: string, options?: { cause?: unknown }) {
    super('KV_ERR_INVALID', fieldMessage({ field, detail }), options);
    this.field = field;
    this.detail = detail;
  }
}

/** A child path: `spec` + `domain` → `spec.domain`; '' + `spec` → `spec`. */
export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** An item path: `disks` + 0 → `disks[0]`. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A map entry: `requests` + `memory` → `requests.memory`; other keys in brackets (`labels[kubevirt.io/vm]`). */
export function keyPath(path: string, key: string): string {
  return PLAIN_KEY.test(key) ? childPath(path, key) : `${path}[${key}]`;
}
