/**
 * The IO shell of the Pod network setup: runs a plan, a teardown or a read inside a network namespace, one
 * opened by pod-netns.ts or given by its path (`/proc/<pid>/ns/net`, `/run/netns/<name>`) and opened here, each
 * tool started through `nsenter` with the namespace handed over as a descriptor (what KubeVirt's handler does
 * by entering the launcher's namespace, pkg/network/setup netpod.go NSExec). Sysctls are written by `sh` inside the namespace: /proc/sys/net shows the network
 * namespace of the process that opens it, so the host's /proc needs no remount (which `ip netns exec` does for
 * /sys only). Anything but a namespace other than our own (the host's, for the handler) is refused before anything runs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { KvError } from '../../kernel/errors/errors.ts';
import { nopLogger, type Logger } from '../../kernel/log/log.ts';
import { NetnsCommandError, runCommand, type CommandRunner } from './command.ts';
import { localMacFromBytes } from './plan.ts';
import { checkForeignNamespace, type OpenNetns } from './pod-netns.ts';
import { parseLinks, parsePodInterface, type Link, type PodInterface } from './pod-interface.ts';
import { renderSteps, type Step, type SysctlWrite } from './steps.ts';
import { renderTeardown, type Teardown } from './teardown.ts';

const NS_PATH = /^(?:\/proc\/[1-9]\d*\/ns\/net|\/run\/netns\/[A-Za-z0-9_.-]+)$/;
/** Writes each (path, value) pair of its arguments, stopping at the first failure. */
const WRITE_SYSCTLS = 'while [ "$#" -gt 1 ]; do printf "%s" "$2" > "$1" || exit 1; shift 2; done';

interface NetnsExecOptions {
  /** How commands run; runCommand when absent. */
  readonly run?: CommandRunner;
  readonly log?: Logger;
}

/** A namespace by path (`/proc/<pid>/ns/net`, `/run/netns/<name>`), or one already open (pod-netns.ts). */
export type NetnsTarget = string | OpenNetns;

/** Opens a namespace path of the expected form, refused when it is not a namespace or is our own. */
function openPath(nsPath: string): OpenNetns {
  if (!NS_PATH.test(nsPath)) {
    throw new KvError(
      'KV_ERR_INVALID',
      `${JSON.stringify(nsPath)} is not /proc/<pid>/ns/net or /run/netns/<name>`,
    );
  }
  let fd: number;
  try {
    fd = openSync(nsPath, 'r');
  } catch (err) {
    throw new KvError('KV_ERR_INVALID', `network namespace ${nsPath} is not there`, { cause: err });
  }
  try {
    checkForeignNamespace(fd, nsPath);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return {
    fd,
    name: nsPath,
    close: (): void => {
      closeSync(fd);
    },
  };
}

/** Runs fn in the target's namespace; a namespace opened here by its path is closed again. */
async function inNetns<T>(
  target: NetnsTarget,
  opts: NetnsExecOptions,
  fn: (ns: Netns) => Promise<T>,
): Promise<T> {
  const open = typeof target === 'string' ? openPath(target) : target;
  try {
    return await fn(new Netns(open, opts.run ?? runCommand));
  } finally {
    if (open !== target) open.close();
  }
}

class Netns {
  constructor(
    readonly ns: OpenNetns,
    private readonly run: CommandRunner,
  ) {}

  /** The tool under nsenter, the namespace handed over as the child's descriptor 3. */
  exec(argv: readonly string[], input = ''): Promise<string> {
    return this.run(['nsenter', '--net=/proc/self/fd/3', '--', ...argv], input, this.ns.fd);
  }

  async ipBatch(lines: readonly string[]): Promise<void> {
    if (lines.length > 0) await this.exec(['ip', '-batch', '-'], lines.map((l) => `${l}\n`).join(''));
  }

  async nft(script: string): Promise<void> {
    if (script !== '') await this.exec(['nft', '-f', '-'], script);
  }

  async sysctls(writes: readonly SysctlWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await this.exec(['sh', '-c', WRITE_SYSCTLS, 'sh', ...writes.flatMap((w) => [w.path, w.value])]);
  }

  async links(): Promise<Link[]> {
    return parseLinks(await this.exec(['ip', '-j', '-d', 'link', 'show']));
  }
}

/** Applies the steps: the link changes in one `ip -batch`, then the sysctls, then the NAT in one transaction. */
export async function applyPlan(
  target: NetnsTarget,
  steps: readonly Step[],
  opts: NetnsExecOptions = {},
): Promise<void> {
  const rendered = renderSteps(steps);
  await inNetns(target, opts, async (ns) => {
    await ns.ipBatch(rendered.ipBatch);
    await ns.sysctls(rendered.sysctls);
    await ns.nft(rendered.nftScript);
    (opts.log ?? nopLogger).info('pod network plan applied', { netns: ns.ns.name, steps: steps.length });
  });
}

/** Removes what the teardown names and finds there; what is already gone is no error. */
export async function applyTeardown(
  target: NetnsTarget,
  t: Teardown,
  opts: NetnsExecOptions = {},
): Promise<void> {
  await inNetns(target, opts, async (ns) => {
    const rendered = renderTeardown(t, await ns.links());
    await ns.ipBatch(rendered.ipBatch);
    await ns.nft(rendered.nftScript);
    const links = rendered.ipBatch.length;
    (opts.log ?? nopLogger).info('pod network torn down', { netns: ns.ns.name, links });
  });
}

/** The pod interface `name` with its addresses and IPv4 routes, as the plan needs it. */
export function readPodInterface(
  target: NetnsTarget,
  name: string,
  opts: NetnsExecOptions = {},
): Promise<PodInterface> {
  return inNetns(target, opts, async (ns) => {
    const addr = await ns.exec(['ip', '-j', 'addr', 'show', 'dev', name]);
    const routes = await ns.exec(['ip', '-j', '-4', 'route', 'show', 'dev', name]);
    return parsePodInterface(name, addr, routes);
  });
}

/** The links of the namespace with their kind. */
export function listLinks(target: NetnsTarget, opts: NetnsExecOptions = {}): Promise<Link[]> {
  return inNetns(target, opts, (ns) => ns.links());
}

const PROBE_LINK = 'kvts-probe';

/**
 * Whether the kernel makes links of this type (`dummy`, `ifb`): a link is added and removed again. `ip`'s
 * `Unknown device type` says no; a probe link left by an earlier run says yes and is removed.
 */
export function supportsLinkType(
  target: NetnsTarget,
  type: string,
  opts: NetnsExecOptions = {},
): Promise<boolean> {
  if (!/^[a-z0-9_]{1,16}$/.test(type))
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(type)} is not a link type`);
  return inNetns(target, opts, async (ns) => {
    try {
      await ns.ipBatch([`link add name ${PROBE_LINK} type ${type}`]);
    } catch (err) {
      const stderr = err instanceof NetnsCommandError ? err.stderr : '';
      if (stderr.includes('Unknown device type')) return false;
      if (!stderr.includes('File exists')) throw err;
    }
    await ns.ipBatch([`link del dev ${PROBE_LINK}`]);
    return true;
  });
}

/** A random locally administered MAC for the bridge binding's bridge (PlanInput.bridgeMac). */
export const randomBridgeMac = (): string => localMacFromBytes(randomBytes(6));
