/**
 * The handler side of the command channel (kubevirt pkg/virt-handler/cmd-client/client.go): dial
 * the launcher's unix socket, negotiate the version through CmdInfo, then call Cmd with a deadline
 * on every call. Domain failures come back as `{ success: false, message }`; transport failures
 * throw RpcTransportError (KV_ERR_TRANSPORT with the gRPC code).
 */
import { Client, credentials } from '@grpc/grpc-js';
import { realClock, type Clock } from '../kernel/clock.ts';
import { CmdInfoService } from './gen/kubevirt/cmd/info/info.ts';
import {
  CmdService,
  VirtualMachineOptions,
  type DeepPartial,
  type Response,
  type VMIRequest,
} from './gen/kubevirt/cmd/v1/cmd.ts';
import {
  CMD_DEADLINE_TIER,
  DEFAULT_DEADLINES,
  deadlineMs,
  type CmdMethod,
  type DeadlineTiers,
} from './deadlines.ts';
import { openSocket, unixTarget, type SocketAt } from './listen.ts';
import { jsonBytes, parseJsonField, resultOf, type CmdResult } from './results.ts';
import { callUnary, type RequestOf, type ResponseOf, type UnaryMethodDef } from './unary.ts';
import { CMD_VERSION, highestCompatibleVersion } from './version.ts';

export interface CmdClientOptions {
  /** Overrides of the 5 s / 20 s / 60 s tiers (tests use short ones). */
  readonly deadlines?: Partial<DeadlineTiers>;
  readonly clock?: Clock;
}

/** What the client releases when it closes (the handle of the socket it dials). */
interface ClientResources {
  readonly onClose?: () => void;
}

/** Each Cmd RPC's definition with its request and response types, so one indexed by a generic method keeps them. */
type CmdDefs = {
  readonly [K in CmdMethod]: UnaryMethodDef<RequestOf<CmdService[K]>, ResponseOf<CmdService[K]>>;
};
const CMD_DEFS: CmdDefs = CmdService;

/** RPCs that take a VMIRequest and answer a plain Response. */
export type VmiCommand = {
  [K in CmdMethod]: RequestOf<CmdService[K]> extends VMIRequest
    ? ResponseOf<CmdService[K]> extends Response
      ? K
      : never
    : never;
}[CmdMethod];

export interface PayloadResult extends CmdResult {
  /** Parsed JSON payload; undefined when the launcher sent none (e.g. no domain yet). */
  readonly payload: unknown;
}

export class LauncherClient {
  readonly version: number;
  private readonly client: Client;
  private readonly tiers: DeadlineTiers;
  private readonly clock: Clock;
  private readonly onClose: (() => void) | undefined;

  constructor(client: Client, version: number, opts: CmdClientOptions & ClientResources = {}) {
    this.client = client;
    this.version = version;
    this.tiers = { ...DEFAULT_DEADLINES, ...opts.deadlines };
    this.clock = opts.clock ?? realClock;
    this.onClose = opts.onClose;
  }

  /** Any Cmd RPC with its KubeVirt deadline tier; the raw response. */
  call<K extends CmdMethod>(
    method: K,
    request: RequestOf<CmdService[K]>,
  ): Promise<ResponseOf<CmdService[K]>> {
    const guestSeconds = (request as { timeoutSeconds?: number }).timeoutSeconds ?? 0;
    const ms = deadlineMs(this.tiers, CMD_DEADLINE_TIER[method], guestSeconds);
    return callUnary(this.client, CMD_DEFS[method], request, { deadline: this.clock.now() + ms });
  }

  /** Sync, Pause, Unpause, Unfreeze, SoftReboot, Reset, Shutdown, Kill, Delete, ...: the VMI as JSON. */
  async vmiCommand(
    method: VmiCommand,
    vmi: object,
    options: DeepPartial<VirtualMachineOptions> = {},
  ): Promise<CmdResult> {
    const request: VMIRequest = {
      vmi: { vmiJson: jsonBytes(vmi) },
      options: VirtualMachineOptions.fromPartial(options),
    };
    return resultOf(await this.call(method, request));
  }

  syncVirtualMachine(vmi: object, options: DeepPartial<VirtualMachineOptions> = {}): Promise<CmdResult> {
    return this.vmiCommand('syncVirtualMachine', vmi, options);
  }

  async freezeVirtualMachine(vmi: object, unfreezeTimeoutSeconds: number): Promise<CmdResult> {
    const request = { vmi: { vmiJson: jsonBytes(vmi) }, unfreezeTimeoutSeconds };
    return resultOf(await this.call('freezeVirtualMachine', request));
  }

  async ping(): Promise<CmdResult> {
    return resultOf(await this.call('ping', {}));
  }

  /** KubeVirt api.Domain JSON, parsed; payload undefined when no domain exists yet. */
  async getDomain(): Promise<PayloadResult> {
    const r = await this.call('getDomain', {});
    return { ...resultOf(r.response), payload: parseJsonField('GetDomain', r.domain) };
  }

  async getDomainStats(): Promise<PayloadResult> {
    const r = await this.call('getDomainStats', {});
    return { ...resultOf(r.response), payload: parseJsonField('GetDomainStats', r.domainStats) };
  }

  async getGuestInfo(): Promise<PayloadResult> {
    const r = await this.call('getGuestInfo', {});
    return { ...resultOf(r.response), payload: parseJsonField('GetGuestInfo', r.guestInfoResponse) };
  }

  /** The guest's logged-in users (a JSON list); payload undefined when the launcher sent none. */
  async getUsers(): Promise<PayloadResult> {
    const r = await this.call('getUsers', {});
    return { ...resultOf(r.response), payload: parseJsonField('GetUsers', r.guestUserListResponse) };
  }

  /** The guest's mounted filesystems (a JSON list); payload undefined when the launcher sent none. */
  async getFilesystems(): Promise<PayloadResult> {
    const r = await this.call('getFilesystems', {});
    return { ...resultOf(r.response), payload: parseJsonField('GetFilesystems', r.guestFilesystemsResponse) };
  }

  async getQemuVersion(): Promise<CmdResult & { readonly version: string }> {
    const r = await this.call('getQemuVersion', {});
    return { ...resultOf(r.response), version: r.version };
  }

  /**
   * GuestPing of a probe: resolves when the guest agent answered; a failure comes as RpcTransportError (the
   * launcher fails it as a gRPC error, and KubeVirt's client reads nothing else).
   */
  async guestPing(domainName: string, timeoutSeconds: number): Promise<void> {
    await this.call('guestPing', { domainName, timeoutSeconds });
  }

  /** Exec of a probe: the command ran in the guest, with its exit code and stdout; failures as guestPing's. */
  async exec(o: {
    domainName: string;
    command: string;
    args: readonly string[];
    timeoutSeconds: number;
  }): Promise<{ readonly exitCode: number; readonly stdOut: string }> {
    const request = {
      domainName: o.domainName,
      Command: o.command,
      Args: [...o.args],
      timeoutSeconds: o.timeoutSeconds,
    };
    const r = await this.call('exec', request);
    return { exitCode: r.exitCode, stdOut: r.stdOut };
  }

  /** Deckhouse fork: the checksum of the VMI spec the launcher last applied. */
  async getAppliedVmiChecksum(): Promise<CmdResult & { readonly checksum: string }> {
    const r = await this.call('getAppliedVmiChecksum', {});
    return { ...resultOf(r.response), checksum: r.checksum };
  }

  close(): void {
    this.client.close();
    this.onClose?.();
  }
}

/**
 * Connects to the launcher's socket at `at` and negotiates the Cmd version (CmdInfo.Info within the short
 * deadline). The socket is opened with O_PATH|O_NOFOLLOW and checked to be one (listen.ts openSocket), and
 * grpc-js dials `/proc/self/fd/N` of that handle, which stays open until the client is closed: every reconnect
 * reaches the same socket, never what a symlink planted at the path since names. Rejects with UnsafePathError
 * when nothing usable is there (missing: reason `not-found`; a symlink or not a socket: refused), with
 * RpcTransportError when the launcher does not answer, and with RpcVersionError when it speaks no version we
 * know; the channel and the handle are closed in each case.
 */
export async function newCmdClient(at: SocketAt, opts: CmdClientOptions = {}): Promise<LauncherClient> {
  const socket = await openSocket(at);
  const client = new Client(unixTarget(socket.procPath), credentials.createInsecure());
  // Only once grpc-js has stopped: a later dial of /proc/self/fd/N would reach whatever N names then.
  const release = (): void => {
    socket.close().catch(() => undefined);
  };
  try {
    const tiers = { ...DEFAULT_DEADLINES, ...opts.deadlines };
    const deadline = (opts.clock ?? realClock).now() + tiers.shortMs;
    const info = await callUnary(client, CmdInfoService.info, {}, { deadline });
    const version = highestCompatibleVersion('kubevirt.cmd.v1.Cmd', info.supportedCmdVersions, [CMD_VERSION]);
    return new LauncherClient(client, version, { ...opts, onClose: release });
  } catch (err) {
    client.close();
    release();
    throw err;
  }
}
