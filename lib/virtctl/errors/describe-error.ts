/**
 * A failure → the text virtctl-ts prints on stderr and its exit code. The server's Status message is shown as
 * it was sent; a second line names the fix: the namespace and -n for a 404, starting the VM for "not running",
 * the verb and resource to ask RBAC for on a 403, the credentials on a 401, the server URL and
 * --kubeconfig/--context when the server cannot be reached. Pure.
 */
import { KvError, StatusError, errorMessage } from '../../kernel/errors/errors.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import { CommandFailed, RequestFailed, type ApiRequest } from './failures.ts';
import { describeAccess, requestAttributes, type RequestAttributes } from './request-attributes.ts';
import { transportReason } from './transport-reason.ts';

export interface ErrorContext {
  /** The namespace the command used. */
  readonly namespace: string;
}

export interface Described {
  readonly text: string;
  readonly exit: ExitCode;
}

interface Unwrapped {
  readonly prefix?: string;
  readonly request?: ApiRequest;
  readonly server?: string;
  readonly cause: unknown;
}

function unwrap(err: unknown): Unwrapped {
  let prefix: string | undefined;
  let cur = err;
  if (cur instanceof CommandFailed) {
    prefix = cur.prefix;
    cur = cur.cause;
  }
  const base = prefix === undefined ? {} : { prefix };
  if (cur instanceof RequestFailed)
    return { ...base, request: cur.request, server: cur.server, cause: cur.cause };
  return { ...base, cause: cur };
}

const KINDS: Readonly<Record<string, string>> = {
  virtualmachines: 'VirtualMachine',
  virtualmachineinstances: 'VirtualMachineInstance',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  datavolumes: 'DataVolume',
};

function objectPhrase(a: RequestAttributes | undefined): string {
  if (a?.name === undefined) return 'the object';
  return `${KINDS[a.resource] ?? a.resource} ${a.name}`;
}

function statusHint(
  e: StatusError,
  a: RequestAttributes | undefined,
  ctx: ErrorContext,
): Described | undefined {
  const ns = a?.namespace ?? ctx.namespace;
  switch (e.httpCode) {
    case 401:
      return {
        exit: EXIT.unauthorized,
        text: 'the API server did not accept the credentials (401 Unauthorized): renew the token or client certificate in the kubeconfig, or pick another with --kubeconfig/--context',
      };
    case 403: {
      const what = a === undefined ? 'this request' : describeAccess(a);
      const group = a === undefined || a.group === '' ? '' : ` (API group ${a.group})`;
      return {
        exit: EXIT.forbidden,
        text: `you may not ${what}${group}: ask your cluster administrator for RBAC that grants it`,
      };
    }
    case 404:
      return {
        exit: EXIT.notFound,
        text: `${objectPhrase(a)} was not found in namespace ${ns}: check the name, or pass -n/--namespace <namespace>`,
      };
    case 409:
      return { exit: EXIT.notRunning, text: conflictHint(e, a, ns) };
    default:
      return undefined;
  }
}

function conflictHint(e: StatusError, a: RequestAttributes | undefined, ns: string): string {
  const notRunning = /not running/i.test(e.message) && a?.subresource !== 'stop';
  if (!notRunning) return `${objectPhrase(a)} is not in a state that allows this; see the message above`;
  const vm = a?.name ?? '<vm>';
  return `${objectPhrase(a)} in namespace ${ns} is not running: start it first (virtctl-ts start ${vm} -n ${ns})`;
}

function withPrefix(prefix: string | undefined, message: string): string {
  return prefix === undefined ? message : `${prefix}: ${message}`;
}

const CODE_EXITS: Partial<Record<string, ExitCode>> = {
  KV_ERR_INVALID: EXIT.usage,
  KV_ERR_CONFIG: EXIT.config,
  KV_ERR_TIMEOUT: EXIT.timeout,
  KV_ERR_ABORTED: EXIT.interrupted,
  KV_ERR_NOT_IMPLEMENTED: EXIT.notImplemented,
};

export function describeError(err: unknown, ctx: ErrorContext): Described {
  const u = unwrap(err);
  const { cause } = u;
  if (cause instanceof StatusError) {
    const attrs = u.request === undefined ? undefined : requestAttributes(u.request.method, u.request.path);
    const first = withPrefix(u.prefix, cause.message);
    const hint = statusHint(cause, attrs, ctx);
    return hint === undefined
      ? { exit: EXIT.failed, text: first }
      : { exit: hint.exit, text: `${first}\n${hint.text}` };
  }
  if (cause instanceof KvError && cause.code === 'KV_ERR_TRANSPORT') {
    const server = u.server ?? 'the API server';
    return {
      exit: EXIT.unreachable,
      text:
        withPrefix(u.prefix, `cannot reach the API server ${server}: ${transportReason(cause)}`) +
        '\ncheck that the cluster is up and the kubeconfig names the right server, or pick another with --kubeconfig/--context',
    };
  }
  const exit = cause instanceof KvError ? (CODE_EXITS[cause.code] ?? EXIT.failed) : EXIT.failed;
  return { exit, text: withPrefix(u.prefix, errorMessage(cause)) };
}
