/**
 * The IO shell of the Pod network setup: runs a plan, a teardown or a read inside a network namespace given by
 * its path (`/proc/<pid>/ns/net` of the launcher, or `/run/netns/<name>`), each tool started through
 * `nsenter --net=<path>` (what KubeVirt's handler does by entering the launcher's namespace, pkg/network/setup
 * netpod.go NSExec). Sysctls are written by `sh` inside the namespace: /proc/sys/net shows the network
 * namespace of the process that opens it, so the host's /proc needs no remount (which `ip netns exec` does for
 * /sys only). A path naming our own namespace, the host's for the handler, is refused before anything runs.
 */
import { randomBytes } from 'node:crypto';
import { statSync, type Stats } from 'node:fs';
import { KvError } from '../../kernel/errors/errors.ts';
import { nopLogger, type Logger } from '../../kernel/log/log.ts';
import { runCommand, type CommandRunner } from './command.ts';
import { localMacFromBytes } from './plan.ts';
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

/** The namespace path once it has the expected form and names a namespace other than ours. */
function foreignNamespace(nsPath: string): string {
  if (!NS_PATH.test(nsPath)) {
    throw new KvError(
      'KV_ERR_INVALID',
      `${JSON.stringify(nsPath)} is not /proc/<pid>/ns/net or /run/netns/<name>`,
    );
  }
  let target: Stats;
  try {
    target = statSync(nsPath);
  } catch (err) {
    throw new KvError('KV_ERR_INVALID', `network namespace ${nsPath} is not there`, { cause: err });
  }
  const own = statSync('/proc/self/ns/net');
  if (target.dev === own.dev && target.ino === own.ino) {
    throw new KvError('KV_ERR_INVALID', `${nsPath} is this process's own network namespace`);
  }
  return nsPath;
}

class Netns {
  private readonly path: string;
  private readonly run: CommandRunner;
  constructor(nsPath: string, opts: NetnsExecOptions) {
    this.path = foreignNamespace(nsPath);
    this.run = opts.run ?? runCommand;
  }

  exec(argv: readonly string[], input = ''): Promise<string> {
    return this.run(['nsenter', `--net=${this.path}`, '--', ...argv], input);
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
  nsPath: string,
  steps: readonly Step[],
  opts: NetnsExecOptions = {},
): Promise<void> {
  const rendered = renderSteps(steps);
  const ns = new Netns(nsPath, opts);
  await ns.ipBatch(rendered.ipBatch);
  await ns.sysctls(rendered.sysctls);
  await ns.nft(rendered.nftScript);
  (opts.log ?? nopLogger).info('pod network plan applied', { netns: nsPath, steps: steps.length });
}

/** Removes what the teardown names and finds there; what is already gone is no error. */
export async function applyTeardown(nsPath: string, t: Teardown, opts: NetnsExecOptions = {}): Promise<void> {
  const ns = new Netns(nsPath, opts);
  const rendered = renderTeardown(t, await ns.links());
  await ns.ipBatch(rendered.ipBatch);
  await ns.nft(rendered.nftScript);
  (opts.log ?? nopLogger).info('pod network torn down', { netns: nsPath, links: rendered.ipBatch.length });
}

/** The pod interface `name` with its addresses and IPv4 routes, as the plan needs it. */
export async function readPodInterface(
  nsPath: string,
  name: string,
  opts: NetnsExecOptions = {},
): Promise<PodInterface> {
  const ns = new Netns(nsPath, opts);
  const addr = await ns.exec(['ip', '-j', 'addr', 'show', 'dev', name]);
  const routes = await ns.exec(['ip', '-j', '-4', 'route', 'show', 'dev', name]);
  return parsePodInterface(name, addr, routes);
}

/** The links of the namespace with their kind. */
export async function listLinks(nsPath: string, opts: NetnsExecOptions = {}): Promise<Link[]> {
  return new Netns(nsPath, opts).links();
}

/** A random locally administered MAC for the bridge binding's bridge (PlanInput.bridgeMac). */
export const randomBridgeMac = (): string => localMacFromBytes(randomBytes(6));
