/**
 * The arguments of `port-forward type/name[/namespace] [protocol/]localPort[:targetPort]...` as KubeVirt
 * virtctl's portforward.ParseTarget and parsePorts read them, including the legacy `type/name.namespace`
 * target (with virtctl's warning), plus the subresource path each port is opened on. Every refusal is a
 * usage error whose message says what to write instead. Pure.
 */
import { subresourcePath } from '../../kubevirt/gvr.ts';
import { usageError } from '../errors/failures.ts';
import { parseTargetKind, type TargetKind } from '../vmi/vmi-commands.ts';

export interface ForwardTarget {
  readonly kind: TargetKind;
  readonly name: string;
  /** Absent: the namespace of -n or the kubeconfig context. */
  readonly namespace?: string;
  /** Read the legacy way, `type/name.namespace` (virtctl warns about it). */
  readonly legacy: boolean;
}

type Protocol = 'tcp' | 'udp';

export interface ForwardedPort {
  readonly protocol: Protocol;
  /** 0: any free port. */
  readonly local: number;
  readonly remote: number;
}

/** virtctl's warning for a legacy target, word for word. */
export const LEGACY_TARGET_WARNING =
  'A dot in target without specifying a namespace activates legacy parsing of name and namespace.\n' +
  'This behavior will be removed in the next release.';

const TARGET_FORM = 'write type/name[/namespace], e.g. vmi/testvmi or vm/testvm/mynamespace';
const PORT_FORM = 'write [protocol/]localPort[:targetPort], e.g. 8080, 8080:80 or udp/5353:53';

export function parseTarget(text: string): ForwardTarget {
  if (text === '') throw usageError(`target cannot be empty: ${TARGET_FORM}`);
  const parts = text.split('/');
  if (parts.length === 1) {
    throw usageError(`target must contain type and name separated by '/' (got '${text}'): ${TARGET_FORM}`);
  }
  if (parts.length > 3) {
    throw usageError(`target is not valid with more than two '/' (got '${text}'): ${TARGET_FORM}`);
  }
  const [kindWord = '', name = '', namespace] = parts;
  if (namespace === '') {
    throw usageError(`namespace cannot be empty (got '${text}'): drop the last '/' or name the namespace`);
  }
  const kind = parseTargetKind(kindWord);
  if (namespace === undefined && name.includes('.')) return legacyTarget(kind, name, text);
  if (name === '') throw usageError(`name cannot be empty (got '${text}'): ${TARGET_FORM}`);
  return { kind, name, ...(namespace !== undefined && { namespace }), legacy: false };
}

/** `type/name.namespace`: the namespace after the last dot (none when nothing follows it). */
function legacyTarget(kind: TargetKind, nameDotNs: string, text: string): ForwardTarget {
  const dot = nameDotNs.lastIndexOf('.');
  const name = nameDotNs.slice(0, dot);
  if (name === '') throw usageError(`name cannot be empty (got '${text}'): ${TARGET_FORM}`);
  const namespace = nameDotNs.slice(dot + 1);
  return { kind, name, ...(namespace !== '' && { namespace }), legacy: true };
}

function portNumber(piece: string, arg: string, what: 'local' | 'target'): number {
  const min = what === 'local' ? 0 : 1;
  const n = /^\d{1,5}$/.test(piece) ? Number(piece) : NaN;
  if (Number.isNaN(n) || n < min || n > 65535) {
    const range = what === 'local' ? '0 to 65535 (0 picks a free port)' : '1 to 65535';
    throw usageError(`invalid ${what} port '${piece}' in '${arg}': a ${what} port is ${range}; ${PORT_FORM}`);
  }
  return n;
}

function parseProtocol(word: string, arg: string): Protocol {
  const p = word.toLowerCase();
  if (p === 'tcp' || p === 'udp') return p;
  throw usageError(`unknown protocol '${word}' in '${arg}': use tcp/ (the default) or udp/; ${PORT_FORM}`);
}

export function parsePort(arg: string): ForwardedPort {
  const slash = arg.split('/');
  if (slash.length > 2) throw usageError(`invalid port '${arg}': more than one '/'; ${PORT_FORM}`);
  const protocol = slash.length === 2 ? parseProtocol(slash[0] ?? '', arg) : 'tcp';
  const ports = slash.at(-1) ?? '';
  if (ports === '') throw usageError(`invalid port '${arg}': missing local and/or remote port; ${PORT_FORM}`);
  const pieces = ports.split(':');
  if (pieces.length > 2) throw usageError(`invalid port '${arg}': more than one ':'; ${PORT_FORM}`);
  const [localText = '', remoteText] = pieces;
  if (localText === '') {
    throw usageError(
      `invalid port '${arg}': missing local port (0 picks a free one, as in 0:80); ${PORT_FORM}`,
    );
  }
  if (remoteText === '')
    throw usageError(`invalid port '${arg}': missing target port after ':'; ${PORT_FORM}`);
  const local = portNumber(localText, arg, 'local');
  const remote = remoteText === undefined ? local : portNumber(remoteText, arg, 'target');
  if (remote === 0) throw usageError(`invalid port '${arg}': port 0 needs a target port, as in 0:80`);
  return { protocol, local, remote };
}

export interface ForwardArgs {
  readonly target: ForwardTarget;
  readonly ports: readonly ForwardedPort[];
}

/** The command's positional arguments; --stdio takes exactly one port. */
export function parseForwardArgs(args: readonly string[], stdio: boolean): ForwardArgs {
  const [targetText, ...portArgs] = args;
  if (targetText === undefined || portArgs.length === 0) {
    throw usageError(
      `port-forward needs a target and at least one port (got ${args.length} argument(s)): ` +
        'write port-forward type/name[/namespace] [protocol/]localPort[:targetPort]..., e.g. port-forward vmi/testvmi 8080:80',
    );
  }
  const target = parseTarget(targetText);
  const ports = portArgs.map(parsePort);
  if (stdio && ports.length !== 1) {
    throw usageError(
      `only one port supported when forwarding to stdout (got ${ports.length}): pass a single port with --stdio`,
    );
  }
  return { target, ports };
}

export interface ResolvedTarget {
  readonly kind: TargetKind;
  readonly name: string;
  readonly namespace: string;
}

/** The portforward subresource of one port: `portforward/{port}` for TCP, `portforward/{port}/udp` for UDP. */
export function portForwardPath(t: ResolvedTarget, port: Pick<ForwardedPort, 'protocol' | 'remote'>): string {
  const resource = t.kind === 'vm' ? 'virtualmachines' : 'virtualmachineinstances';
  const sub = `portforward/${port.remote}${port.protocol === 'udp' ? '/udp' : ''}`;
  return subresourcePath({ resource, namespace: t.namespace, name: t.name }, sub);
}

/** `vmi/testvmi/ns port 22` (and `port 53/udp`): how messages name what is forwarded to. */
export function describeForward(t: ResolvedTarget, port: Pick<ForwardedPort, 'protocol' | 'remote'>): string {
  return `${t.kind}/${t.name}/${t.namespace} port ${port.remote}${port.protocol === 'udp' ? '/udp' : ''}`;
}
