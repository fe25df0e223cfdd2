/**
 * The command lines of `virtctl-ts ssh` and `virtctl-ts scp` for the system's ssh/scp, as KubeVirt virtctl's
 * wrapped mode builds them (ssh/wrapped.go RunLocalClient, scp/wrapped.go): `-o ProxyCommand=<this CLI>
 * port-forward --stdio=true kind/name/namespace <port>`, the --local-ssh-opts, `-i` when given, then the
 * host `[user@]kind.name.namespace`. Also the `[user@]type/name[/namespace]` target and scp's `target:path`
 * locations (ssh.ParseTarget, scp.ParseTarget). Pure.
 */
import { usageError } from '../errors/failures.ts';
import { parseTarget, type ForwardTarget, type ResolvedTarget } from '../portforward/forward-args.ts';

export interface SshTarget {
  readonly username?: string;
  readonly target: ForwardTarget;
}

const SSH_FORM = 'write [user@]type/name[/namespace], e.g. jdoe@vmi/testvmi';

export function parseSshTarget(text: string): SshTarget {
  const parts = text.split('@');
  if (parts.length > 2) throw usageError(`expected at most one '@' in '${text}': ${SSH_FORM}`);
  const [first = '', second] = parts;
  if (second === undefined) return { target: parseTarget(first) };
  if (first === '') throw usageError(`expected username before '@' in '${text}': ${SSH_FORM}`);
  if (second === '') throw usageError(`expected target after '@' in '${text}': ${SSH_FORM}`);
  return { username: first, target: parseTarget(second) };
}

export interface ScpLocations {
  readonly local: string;
  readonly remote: SshTarget & { readonly path: string };
  /** The file goes to the VM (the destination is the remote one). */
  readonly toRemote: boolean;
}

const SCP_FORM = 'one location is local, the other [user@]type/name[/namespace]:path';

export function parseScpLocations(source: string, destination: string): ScpLocations {
  const srcRemote = source.includes(':');
  const dstRemote = destination.includes(':');
  if (srcRemote && dstRemote) {
    throw usageError(
      `copying from a remote location to another remote location is not supported: "${source}" to "${destination}"; ${SCP_FORM}`,
    );
  }
  if (!srcRemote && !dstRemote) {
    throw usageError(
      `none of the two provided locations seems to be a remote location: "${source}" to "${destination}"; ${SCP_FORM}`,
    );
  }
  const [remoteText, local] = dstRemote ? [destination, source] : [source, destination];
  const colon = remoteText.indexOf(':');
  const remote = parseSshTarget(remoteText.slice(0, colon));
  return { local, remote: { ...remote, path: remoteText.slice(colon + 1) }, toRemote: dstRemote };
}

/** One word for a POSIX shell (ssh runs the ProxyCommand with the user's shell). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\-.,:/@=+%]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface LocalClientArgs {
  /** The command line that starts this CLI (selfCommand). */
  readonly self: readonly string[];
  /** The kubeconfig flags of this run, passed on to the proxy. */
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly target: ResolvedTarget;
  /** The guest port sshd listens on (-p). */
  readonly port: number;
  /** -t/--local-ssh-opts, each one argument. */
  readonly localOptions: readonly string[];
  /** Only when -i was given: otherwise ssh's own defaults and agent apply. */
  readonly identityFile?: string;
  /** Only when --known-hosts was given: ssh's UserKnownHostsFile. */
  readonly knownHosts?: string;
  readonly username?: string;
}

/** `ProxyCommand=…`; ssh expands %-tokens in it, so a literal % is written %%. */
export function proxyCommandOption(a: LocalClientArgs): string {
  const words = [
    ...a.self,
    ...(a.kubeconfig === undefined ? [] : ['--kubeconfig', a.kubeconfig]),
    ...(a.context === undefined ? [] : ['--context', a.context]),
    'port-forward',
    '--stdio=true',
    `${a.target.kind}/${a.target.name}/${a.target.namespace}`,
    String(a.port),
  ];
  return `ProxyCommand=${words.map(shellQuote).join(' ').replaceAll('%', '%%')}`;
}

/** ssh reads an -o value like a config line: a path with blanks is quoted. */
function configValue(v: string): string {
  return /\s/.test(v) ? `"${v}"` : v;
}

function commonArgs(a: LocalClientArgs): string[] {
  return [
    '-o',
    proxyCommandOption(a),
    ...a.localOptions,
    ...(a.identityFile === undefined ? [] : ['-i', a.identityFile]),
    ...(a.knownHosts === undefined ? [] : ['-o', `UserKnownHostsFile=${configValue(a.knownHosts)}`]),
  ];
}

/** `[user@]vmi.name.namespace`: the host name ssh sees (and keys known_hosts by). */
function sshHost(a: Pick<LocalClientArgs, 'target' | 'username'>): string {
  const user = a.username === undefined || a.username === '' ? '' : `${a.username}@`;
  return `${user}${a.target.kind}.${a.target.name}.${a.target.namespace}`;
}

export function sshArgv(a: LocalClientArgs, command?: string): string[] {
  return [...commonArgs(a), sshHost(a), ...(command === undefined || command === '' ? [] : [command])];
}

export interface ScpCopy {
  readonly recursive: boolean;
  readonly preserve: boolean;
  readonly local: string;
  readonly remotePath: string;
  readonly toRemote: boolean;
}

export function scpArgv(a: LocalClientArgs, c: ScpCopy): string[] {
  const remote = `${sshHost(a)}:${c.remotePath}`;
  return [
    ...commonArgs(a),
    ...(c.recursive ? ['-r'] : []),
    ...(c.preserve ? ['-p'] : []),
    ...(c.toRemote ? [c.local, remote] : [remote, c.local]),
  ];
}
