/**
 * The exit codes of virtctl-ts, one per kind of failure so a script can branch on them, and the help text that
 * lists them (the `--help` epilogue; README repeats it). Pure.
 */
export const EXIT = {
  ok: 0,
  /** The server refused for another reason (its Status message is shown), or a local failure. */
  failed: 1,
  /** Same as the binary's NOT_IMPLEMENTED_EXIT (cmd/roles.ts): ssh/scp --local-ssh=false. */
  notImplemented: 2,
  usage: 3,
  notFound: 4,
  notRunning: 5,
  forbidden: 6,
  unauthorized: 7,
  unreachable: 8,
  config: 9,
  timeout: 10,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const MEANING: ReadonlyArray<readonly [ExitCode, string]> = [
  [EXIT.ok, 'done'],
  [EXIT.failed, 'the server refused the request (its message is shown) or another failure'],
  [EXIT.notImplemented, 'not implemented in virtctl-ts (the built-in ssh/scp client, --local-ssh=false)'],
  [EXIT.usage, 'bad usage: unknown command or flag, missing or invalid argument'],
  [EXIT.notFound, 'no such VM/VMI (404): check the name and the namespace (-n)'],
  [EXIT.notRunning, 'conflict with the object state (409), e.g. the VMI is not running: start it'],
  [EXIT.forbidden, 'forbidden (403): ask for RBAC on the named verb and resource'],
  [EXIT.unauthorized, 'unauthenticated (401): refresh the kubeconfig credentials'],
  [EXIT.unreachable, 'API server unreachable (connection refused, DNS, TLS): check --kubeconfig/--context'],
  [EXIT.config, 'kubeconfig missing or invalid'],
  [EXIT.timeout, '--wait or --timeout ran out'],
  [EXIT.interrupted, 'interrupted (SIGINT/SIGTERM) while waiting'],
];

export function exitCodeHelp(): string {
  const rows = MEANING.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`);
  return ['Exit codes:', ...rows].join('\n');
}
