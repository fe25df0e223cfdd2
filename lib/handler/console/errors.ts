/**
 * What the console server answers when it cannot serve a request: an HTTP status and KubeVirt's message text
 * (kubevirt pkg/virt-handler/rest, tag v1.6.2: go-restful WriteError writes the error's text as the body), and
 * how a launcher failure reads (kubevirt pkg/virt-handler/cmd-client/client.go handleError). Pure.
 */
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { CmdResult } from '../../rpc/index.ts';

export interface ConsoleError {
  readonly status: number;
  readonly message: string;
}

export function isConsoleError(v: unknown): v is ConsoleError {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { status?: unknown }).status === 'number' &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}

/** The VMI is not in this handler's cache (rest/common.go getVMI). */
export function vmiNotFound(namespace: string, name: string): ConsoleError {
  return { status: 404, message: `VMI ${namespace}/${name} does not exist` };
}

/** No launcher command socket for the VMI on this node (cmd-client FindSocketOnHost). */
export function noCommandSocket(vmiUid: string, status: number): ConsoleError {
  return { status, message: `No command socket found for vmi ${vmiUid}` };
}

/** The VMI's serial or VNC socket is not there (console.go getUnixSocketPath: the os.Stat error). */
export function noUnixSocket(path: string): ConsoleError {
  return { status: 400, message: `stat ${path}: no such file or directory` };
}

/**
 * A serial console is open for the VMI: the next one is refused (KubeVirt would end the open one). A client that
 * vanished without closing is released once a ping goes unanswered, within two ping periods.
 */
export function consoleInUse(namespace: string, name: string, releaseSeconds: number): ConsoleError {
  return {
    status: 409,
    message:
      `Active console connection. Request denied: VMI ${namespace}/${name} has a console session open; ` +
      `close it first (one whose client went away is released within ${releaseSeconds} s)`,
  };
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's %q of a string: double quotes, Go escapes, printable characters kept. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = ESCAPES[ch];
    const cp = ch.codePointAt(0) ?? 0;
    if (esc !== undefined) out += esc;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/\p{C}/u.test(ch))
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The launcher answered success=false. */
export function commandFailed(command: string, result: CmdResult, status: number): ConsoleError {
  return { status, message: `server error. command ${command} failed: ${goQuote(result.message)}` };
}

/** The call itself failed (transport, deadline, a decode error of the answer). */
export function commandError(command: string, err: unknown, status: number): ConsoleError {
  return { status, message: `unknown error encountered sending command ${command}: ${errorMessage(err)}` };
}
