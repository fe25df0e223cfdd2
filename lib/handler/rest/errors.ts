/**
 * What the REST server answers when it cannot serve a request: an HTTP status and KubeVirt's message text
 * (kubevirt pkg/virt-handler/rest, tag v1.6.2: go-restful WriteError writes the error's text as the body), and
 * how a launcher failure reads (kubevirt pkg/virt-handler/cmd-client/client.go handleError). Pure.
 */
import { goQuote } from '../../kernel/go/strconv.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { CmdResult } from '../../rpc/index.ts';

export interface RestError {
  readonly status: number;
  readonly message: string;
}

export function isRestError(v: unknown): v is RestError {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { status?: unknown }).status === 'number' &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}

/** The VMI is not in this handler's cache (rest/common.go getVMI). */
export function vmiNotFound(namespace: string, name: string): RestError {
  return { status: 404, message: `VMI ${namespace}/${name} does not exist` };
}

/** No launcher command socket for the VMI on this node (cmd-client FindSocketOnHost). */
export function noCommandSocket(vmiUid: string, status: number): RestError {
  return { status, message: `No command socket found for vmi ${vmiUid}` };
}

/** The VMI's serial or VNC socket is not there (console.go getUnixSocketPath: the os.Stat error). */
export function noUnixSocket(path: string): RestError {
  return { status: 400, message: `stat ${path}: no such file or directory` };
}

/**
 * A serial console is open for the VMI: the next one is refused (KubeVirt would end the open one). A client that
 * vanished without closing is released once a ping goes unanswered, within two ping periods.
 */
export function consoleInUse(namespace: string, name: string, releaseSeconds: number): RestError {
  return {
    status: 409,
    message:
      `Active console connection. Request denied: VMI ${namespace}/${name} has a console session open; ` +
      `close it first (one whose client went away is released within ${releaseSeconds} s)`,
  };
}

/** The launcher answered success=false. */
export function commandFailed(command: string, result: CmdResult, status: number): RestError {
  return { status, message: `server error. command ${command} failed: ${goQuote(result.message)}` };
}

/** The call itself failed (transport, deadline, a decode error of the answer). */
export function commandError(command: string, err: unknown, status: number): RestError {
  return { status, message: `unknown error encountered sending command ${command}: ${errorMessage(err)}` };
}
