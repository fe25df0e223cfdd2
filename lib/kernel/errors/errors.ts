/**
 * Typed errors with stable codes. Callers branch on `code`, never on the message.
 * StatusError carries a Kubernetes `Status` (reason, HTTP code, field causes).
 */
export type ErrorCode =
  | 'KV_ERR_INTERNAL'
  | 'KV_ERR_TERMINAL'
  | 'KV_ERR_STATUS'
  | 'KV_ERR_TIMEOUT'
  | 'KV_ERR_ABORTED'
  | 'KV_ERR_CONFIG'
  | 'KV_ERR_TRANSPORT'
  | 'KV_ERR_DECODE'
  | 'KV_ERR_SHUTDOWN'
  | 'KV_ERR_NOT_IMPLEMENTED'
  | 'KV_ERR_INVALID'
  | 'KV_ERR_LIBVIRT'
  | 'KV_ERR_LAUNCHER'
  | 'KV_ERR_HOTPLUG'
  | 'KV_ERR_UNSAFE_PATH'
  | 'KV_ERR_CUSTOMIZE';

export class KvError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Reconcile outcome that must not be retried: logged and counted, then dropped. */
export class TerminalError extends KvError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('KV_ERR_TERMINAL', message, options);
  }
}

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotImplemented'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Expired'
  | 'Unknown'
  | '';

/** metav1.StatusCause as it travels: the cause type (FieldValueInvalid, …) is named `reason` on the wire. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code: number;
}

export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

const REASON_BY_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function newStatus(code: number, message: string, extra?: Partial<Status>): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: REASON_BY_CODE[code] ?? 'Unknown',
    code,
    ...extra,
  };
}

/** An API answer that was not 2xx, carried with its Status. */
export class StatusError extends KvError {
  readonly status: Status;
  constructor(status: Status, options?: { cause?: unknown }) {
    super('KV_ERR_STATUS', status.message ?? `status ${status.code}`, options);
    this.status = status;
  }
  get httpCode(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return this.status.reason ?? '';
  }
}

function statusOf(err: unknown): Status | undefined {
  return err instanceof StatusError ? err.status : undefined;
}

export const isNotFound = (err: unknown): boolean => statusOf(err)?.code === 404;
export const isConflict = (err: unknown): boolean =>
  statusOf(err)?.code === 409 && statusOf(err)?.reason !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): boolean => statusOf(err)?.reason === 'AlreadyExists';
/** 410: the resourceVersion asked for is older than etcd keeps (reason Expired or Gone). */
export const isGone = (err: unknown): boolean => statusOf(err)?.code === 410;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
