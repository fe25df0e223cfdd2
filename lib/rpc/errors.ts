/**
 * gRPC failures as typed errors. Transport problems (unreachable socket, deadline, UNIMPLEMENTED,
 * a server-side throw) surface as KV_ERR_TRANSPORT with the gRPC status code; domain failures never
 * do: they come back in-band as `{ success: false, message }` (kubevirt cmd-server/server.go).
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { KvError } from '../kernel/errors/errors.ts';

function codeName(code: number): string {
  // A numeric enum maps each value back to its name.
  return status[code] ?? String(code);
}

/** A call that failed below the application: `grpcCode` is the gRPC status code (grpc.status). */
export class RpcTransportError extends KvError {
  readonly grpcCode: status;
  readonly method: string;
  constructor(method: string, grpcCode: status, details: string, options?: { cause?: unknown }) {
    super('KV_ERR_TRANSPORT', `${method}: ${codeName(grpcCode)}: ${details}`, options);
    this.grpcCode = grpcCode;
    this.method = method;
  }
}

/**
 * The peer speaks none of our protocol versions (kubevirt GetHighestCompatibleVersion). The code is
 * KV_ERR_NOT_IMPLEMENTED: the server implements no version this client knows.
 */
export class RpcVersionError extends KvError {
  readonly serverVersions: readonly number[];
  readonly clientVersions: readonly number[];
  constructor(service: string, serverVersions: readonly number[], clientVersions: readonly number[]) {
    super(
      'KV_ERR_NOT_IMPLEMENTED',
      `${service}: no compatible version, server supports [${serverVersions.join(',')}], client [${clientVersions.join(',')}]`,
    );
    this.serverVersions = serverVersions;
    this.clientVersions = clientVersions;
  }
}

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';
}

/** Wraps what grpc-js handed to a client callback. */
export function toTransportError(method: string, err: unknown): RpcTransportError {
  if (isServiceError(err)) {
    return new RpcTransportError(method, err.code, err.details, { cause: err });
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new RpcTransportError(method, status.UNKNOWN, msg, { cause: err });
}

export function isUnimplemented(err: unknown): boolean {
  return err instanceof RpcTransportError && err.grpcCode === status.UNIMPLEMENTED;
}

/** The launcher went away or the call was cancelled (kubevirt cmd-client IsDisconnected). */
export function isDisconnected(err: unknown): boolean {
  return (
    err instanceof RpcTransportError &&
    (err.grpcCode === status.UNAVAILABLE || err.grpcCode === status.CANCELLED)
  );
}
