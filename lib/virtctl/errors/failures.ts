/**
 * The wrappers a failure travels in on its way to describeError: the API request it came from (for the 403 and
 * 404 hints and the server URL), and the command's own prefix in virtctl's wording ("Error starting
 * VirtualMachine"). Usage and timeout failures are KvErrors with their codes.
 */
import { KvError, errorMessage } from '../../kernel/errors/errors.ts';

export interface ApiRequest {
  readonly method: 'GET' | 'PUT' | 'DELETE';
  readonly path: string;
}

export class RequestFailed extends Error {
  constructor(
    readonly request: ApiRequest,
    /** The API server URL from the kubeconfig. */
    readonly server: string,
    cause: unknown,
  ) {
    super(errorMessage(cause), { cause });
    this.name = 'RequestFailed';
  }
}

export class CommandFailed extends Error {
  constructor(
    readonly prefix: string,
    cause: unknown,
  ) {
    super(`${prefix}: ${errorMessage(cause)}`, { cause });
    this.name = 'CommandFailed';
  }
}

/** Bad flags or arguments (exit usage). */
export function usageError(message: string): KvError {
  return new KvError('KV_ERR_INVALID', message);
}

export function timeoutError(message: string): KvError {
  return new KvError('KV_ERR_TIMEOUT', message);
}
