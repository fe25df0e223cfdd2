/**
 * Commands that go through the guest agent or libvirt's statistics: filesystem freeze with the safety thaw
 * (kubevirt manager.go FreezeVMI: the launcher thaws on its own once unfreezeTimeoutSeconds have passed),
 * thaw, guest info, logged-in users, filesystems, domain stats, and the probes' guest-ping and guest-exec
 * (manager.go GuestPing, Exec).
 */
import type { TimerHandle } from '../kernel/clock.ts';
import { KvError } from '../kernel/errors/errors.ts';
import type { Logger } from '../kernel/log/log.ts';
import {
  GUEST_INFO,
  agentCommand,
  fsFreeze,
  fsThaw,
  getAllDomainStats,
  getGuestInfo,
  type DomainRef,
} from '../libvirt/index.ts';
import {
  domainStats,
  guestAgentInfo,
  guestFilesystems,
  guestUsers,
  type GuestFilesystem,
  type GuestUser,
} from './report/guest-json.ts';
import { guestExec, type GuestExecRequest, type GuestExecResult } from './guest-exec.ts';
import type { DomainManager } from './manager.ts';
import type { GuestOsInfoJson, InterfaceStatusJson } from '../rpc/index.ts';

const OS_INFO_FIELDS: readonly [string, keyof GuestOsInfoJson][] = [
  ['name', 'Name'],
  ['kernel-release', 'KernelRelease'],
  ['version', 'Version'],
  ['pretty-name', 'PrettyName'],
  ['version-id', 'VersionId'],
  ['kernel-version', 'KernelVersion'],
  ['machine', 'Machine'],
  ['id', 'Id'],
];

/** qemu-ga's guest-get-osinfo answer in the launcher's OSInfo names; members that are not strings are left out. */
export function osInfoJson(ret: unknown): Partial<GuestOsInfoJson> {
  const out: Partial<GuestOsInfoJson> = {};
  if (typeof ret !== 'object' || ret === null) return out;
  const r = ret as Record<string, unknown>;
  for (const [from, to] of OS_INFO_FIELDS) {
    const v = r[from];
    if (typeof v === 'string') out[to] = v;
  }
  return out;
}

/**
 * qemu-ga's guest-network-get-interfaces answer as api.InterfaceStatus (KubeVirt's agent poller
 * parseInterfaces): every interface but loopback with a MAC, its addresses without prefix lengths.
 */
export function interfacesJson(ret: unknown): InterfaceStatusJson[] {
  if (!Array.isArray(ret)) return [];
  return ret.flatMap((i: unknown): InterfaceStatusJson[] => {
    if (typeof i !== 'object' || i === null) return [];
    const r = i as Record<string, unknown>;
    const name = r['name'];
    const mac = r['hardware-address'];
    if (typeof name !== 'string' || name === 'lo' || typeof mac !== 'string' || mac === '') return [];
    const addresses = Array.isArray(r['ip-addresses']) ? (r['ip-addresses'] as unknown[]) : [];
    const ips = addresses.flatMap((a) => {
      const ip =
        typeof a === 'object' && a !== null ? (a as Record<string, unknown>)['ip-address'] : undefined;
      return typeof ip === 'string' ? [ip] : [];
    });
    return [{ Mac: mac.toLowerCase(), Ip: ips[0] ?? '', IPs: ips, InterfaceName: name }];
  });
}

/** The `return` member of an agent answer. */
function parseReturn(text: string | null): unknown {
  if (text === null) return undefined;
  return (JSON.parse(text) as { return?: unknown }).return;
}

/** Agent queries answer well inside the RPC's 5 s deadline. */
const AGENT_QUERY_TIMEOUT_SECONDS = 3;

/** A probe's exec: the domain it names and the command. */
export interface ProbeExecRequest extends GuestExecRequest {
  readonly domainName: string;
}

interface AgentInfo {
  version?: string;
  supported_commands?: { name: string; enabled: boolean }[];
}

export class GuestOps {
  private thawTimer: TimerHandle | undefined;

  constructor(
    private readonly m: DomainManager,
    private readonly log: Logger,
  ) {}

  /** Freezes every guest filesystem; with a timeout above 0 they are thawed again after that many seconds. */
  async freeze(unfreezeTimeoutSeconds: number): Promise<number> {
    const ref = await this.m.require();
    const frozen = await fsFreeze(this.m.conn, ref);
    this.thawTimer?.cancel();
    this.thawTimer = undefined;
    if (unfreezeTimeoutSeconds > 0) {
      this.thawTimer = this.m.clock.after(unfreezeTimeoutSeconds * 1000, () => {
        this.thawTimer = undefined;
        this.unfreeze().then(
          (n) => {
            this.log.info('guest filesystems thawed after the unfreeze timeout', {
              thawed: n,
              unfreezeTimeoutSeconds,
            });
          },
          (err: unknown) => {
            this.log.error('automatic thaw failed', { reason: err });
          },
        );
      });
    }
    this.log.info('guest filesystems frozen', { frozen, unfreezeTimeoutSeconds });
    return frozen;
  }

  async unfreeze(): Promise<number> {
    this.thawTimer?.cancel();
    this.thawTimer = undefined;
    return fsThaw(this.m.conn, await this.m.require());
  }

  /** 'frozen' or 'thawed' from the agent; '' when it does not answer. */
  async freezeStatus(): Promise<string> {
    const ref = await this.m.lookup();
    if (ref === undefined) return '';
    try {
      const r = await agentCommand(
        this.m.conn,
        ref,
        { execute: 'guest-fsfreeze-status' },
        { timeoutSeconds: 5 },
      );
      const status = parseReturn(r);
      return typeof status === 'string' ? status : '';
    } catch {
      return '';
    }
  }

  /** The guest's OS from guest-get-osinfo, in api.GuestOSInfo's JSON names; empty when the agent is silent. */
  async osInfo(): Promise<Partial<GuestOsInfoJson>> {
    return this.quietly('guest os info', {}, async (ref) => {
      const cmd = { execute: 'guest-get-osinfo' };
      const r = await agentCommand(this.m.conn, ref, cmd, { timeoutSeconds: AGENT_QUERY_TIMEOUT_SECONDS });
      return osInfoJson(parseReturn(r));
    });
  }

  /** The guest's interfaces from guest-network-get-interfaces; empty when the agent is silent. */
  async interfaces(): Promise<InterfaceStatusJson[]> {
    return this.quietly('guest interfaces', [], async (ref) => {
      const cmd = { execute: 'guest-network-get-interfaces' };
      const r = await agentCommand(this.m.conn, ref, cmd, { timeoutSeconds: AGENT_QUERY_TIMEOUT_SECONDS });
      return interfacesJson(parseReturn(r));
    });
  }

  async guestInfo(): Promise<object> {
    const ref = await this.m.require();
    const [params, info, fsFreezeStatus] = await Promise.all([
      getGuestInfo(this.m.conn, ref),
      agentCommand(this.m.conn, ref, { execute: 'guest-info' }, { timeoutSeconds: 5 }).then(
        (r) => parseReturn(r) as AgentInfo | undefined,
        () => undefined,
      ),
      this.freezeStatus(),
    ]);
    return guestAgentInfo(params, {
      ...(info?.version !== undefined && { version: info.version }),
      ...(info?.supported_commands !== undefined && {
        supportedCommands: info.supported_commands.map((c) => ({ name: c.name, enabled: c.enabled })),
      }),
      fsFreezeStatus,
    });
  }

  /**
   * Users logged in to the guest (kubevirt GetUsers: libvirt's guest info, USERS). Like KubeVirt, whose
   * agent poller just keeps the last answer, no domain or no agent gives an empty list, not a failure.
   */
  async users(): Promise<GuestUser[]> {
    return this.quietly('guest users', [], async (ref) =>
      guestUsers(await getGuestInfo(this.m.conn, ref, GUEST_INFO.USERS)),
    );
  }

  /** Mounted guest filesystems (kubevirt GetFilesystems: guest-get-fsinfo); empty as users() is. */
  async filesystems(): Promise<GuestFilesystem[]> {
    return this.quietly('guest filesystems', [], async (ref) => {
      const cmd = { execute: 'guest-get-fsinfo' };
      const r = await agentCommand(this.m.conn, ref, cmd, { timeoutSeconds: AGENT_QUERY_TIMEOUT_SECONDS });
      return guestFilesystems(parseReturn(r));
    });
  }

  /**
   * The domain a probe names, which must be this launcher's and defined (KubeVirt looks the name up in the
   * launcher's libvirt, which holds only that one).
   */
  private async probed(domainName: string): Promise<DomainRef> {
    if (domainName !== this.m.domainName) {
      throw new KvError(
        'KV_ERR_INVALID',
        `domain ${domainName} is not this launcher's (${this.m.domainName})`,
      );
    }
    return this.m.require();
  }

  /**
   * guest-ping through the agent; rejects when the agent does not answer. KubeVirt waits libvirt's default
   * agent timeout; here the probe's own timeout (at least 1 s) bounds it.
   */
  async ping(domainName: string, timeoutSeconds: number): Promise<void> {
    const ref = await this.probed(domainName);
    const cmd = { execute: 'guest-ping' };
    await agentCommand(this.m.conn, ref, cmd, { timeoutSeconds: Math.max(1, timeoutSeconds) });
  }

  /** A probe's command run in the guest (guest-exec.ts): its exit code and stdout once it has exited. */
  async exec(req: ProbeExecRequest, signal?: AbortSignal): Promise<GuestExecResult> {
    const ref = await this.probed(req.domainName);
    const timeoutSeconds = Math.max(1, req.timeoutSeconds);
    const agent = (cmd: object): Promise<string | null> =>
      agentCommand(this.m.conn, ref, cmd, { timeoutSeconds });
    return guestExec(agent, this.m.clock, req, signal);
  }

  /** fn on the domain; `fallback` when there is none or fn fails (logged at verbosity 3). */
  private async quietly<T>(what: string, fallback: T, fn: (ref: DomainRef) => Promise<T>): Promise<T> {
    try {
      const ref = await this.m.lookup();
      return ref === undefined ? fallback : await fn(ref);
    } catch (err) {
      this.log.v(3).info('guest agent query failed', { query: what, reason: err });
      return fallback;
    }
  }

  /** Statistics of the domain; undefined when it does not run. */
  async stats(): Promise<object | undefined> {
    const ref = await this.m.lookup();
    if (ref === undefined) return undefined;
    const [s] = await getAllDomainStats(this.m.conn, { domains: [ref] });
    if (s === undefined) return undefined;
    return domainStats({ name: s.domain.name, uuid: s.domain.uuid, params: s.params });
  }

  close(): void {
    this.thawTimer?.cancel();
    this.thawTimer = undefined;
  }
}
