/**
 * The launcher's Cmd service (kubevirt pkg/virt-launcher/virtwrap/cmd-server/server.go): each RPC decodes the
 * VMI, runs one manager call and answers in-band. A domain failure becomes `{success:false, message}` naming
 * the command and the cause (a conversion error names the VMI field); the server keeps serving.
 * SyncVirtualMachineCPUs sets the running domain's vCPU count (vcpu-hotplug.ts), SyncVirtualMachineMemory
 * resizes its virtio-mem device (memory-hotplug.ts). The migration RPCs drive the manager's source and
 * target sides (migration/). RPCs not listed here answer UNIMPLEMENTED. GetUsers and GetFilesystems answer a JSON list, empty without an agent.
 * The probes' GuestPing and Exec fail as gRPC errors instead (KubeVirt's client reads only those for them).
 */
import { asVirtualMachineInstance, type VirtualMachineInstance } from '../kubevirt/index.ts';
import { errorMessage, KvError } from '../kernel/errors/errors.ts';
import type { Logger } from '../kernel/log/log.ts';
import { getVersion } from '../libvirt/index.ts';
import { failed, ok, type CmdHandlers, type CmdMessages as M } from '../rpc/index.ts';
import type { GuestOps } from './guest-ops.ts';
import type { DomainManager } from './manager.ts';
import { updateGuestMemory } from './memory-hotplug.ts';
import { updateVcpus } from './vcpu-hotplug.ts';
import { parseMigrationOptions } from './migration/options.ts';

/** What the handlers use of GuestOps (tests give a fake). */
export type GuestCommands = Pick<
  GuestOps,
  'freeze' | 'unfreeze' | 'freezeStatus' | 'guestInfo' | 'stats' | 'users' | 'filesystems' | 'ping' | 'exec'
>;

/** What the handlers use of the DomainManager (tests give a fake). */
export type DomainCommands = Pick<
  DomainManager,
  | 'sync'
  | 'shutdown'
  | 'kill'
  | 'delete'
  | 'pause'
  | 'unpause'
  | 'softReboot'
  | 'reset'
  | 'domainJson'
  | 'conn'
  | 'appliedChecksum'
  | 'require'
  | 'checkIdentity'
>;

/** What the migration RPCs use of the DomainManager (tests give a fake). */
type MigrationCommands = Pick<
  DomainManager,
  'migrate' | 'cancelMigration' | 'prepareMigrationTarget' | 'finalizeMigrationTarget'
>;

export interface HandlerDeps {
  readonly manager: DomainCommands;
  readonly migration?: MigrationCommands;
  /** This launcher's Pod (POD_NAME): SignalTargetPodCleanup acts only in the migration's target Pod. */
  readonly podName?: string | undefined;
  /** Ends the launcher (a target Pod told to clean up). */
  readonly requestExit?: () => void;
  readonly guest: GuestCommands;
  readonly log: Logger;
  /** Called after a successful sync (the notifier sends the domain). */
  readonly afterSync?: () => void;
}

/** The VMI of a request, checked against the VMI schema: a bad field is refused with its path. */
export function decodeVmi(bytes: Uint8Array | undefined): VirtualMachineInstance {
  if (bytes === undefined || bytes.length === 0)
    throw new KvError('KV_ERR_DECODE', 'the request carries no VMI');
  let vmi: unknown;
  try {
    vmi = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `the VMI is not valid JSON: ${errorMessage(err)}`, { cause: err });
  }
  return asVirtualMachineInstance(vmi);
}

async function inBand(what: string, log: Logger, fn: () => Promise<void>): Promise<M.Response> {
  try {
    await fn();
    return ok();
  } catch (err) {
    const message = `${what} failed: ${errorMessage(err)}`;
    log.warning('command failed', { command: what, reason: err });
    return failed(message);
  }
}

const empty = (r: M.Response | undefined): M.Response => r ?? ok();

interface Payload<T> {
  response: M.Response;
  value?: T;
}

/** fn's value for a payload RPC, or the in-band failure. */
async function withPayload<T>(what: string, log: Logger, fn: () => Promise<T>): Promise<Payload<T>> {
  let value: T | undefined;
  const response = await inBand(what, log, async () => {
    value = await fn();
  });
  return value === undefined ? { response } : { response, value };
}

/** GetUsers and GetFilesystems: KubeVirt's JSON lists (cmd-server/server.go), '' only on a failure. */
export function guestListHandlers(
  guestCommands: Pick<GuestCommands, 'users' | 'filesystems'>,
  log: Logger,
): Required<Pick<CmdHandlers, 'getUsers' | 'getFilesystems'>> {
  const json = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));
  return {
    getUsers: async (): Promise<M.GuestUserListResponse> => {
      const r = await withPayload('GetUsers', log, () => guestCommands.users());
      return { response: r.response, guestUserListResponse: json(r.value) };
    },
    getFilesystems: async (): Promise<M.GuestFilesystemsResponse> => {
      const r = await withPayload('GetFilesystems', log, () => guestCommands.filesystems());
      return { response: r.response, guestFilesystemsResponse: json(r.value) };
    },
  };
}

/**
 * GuestPing and Exec, the probes' RPCs (cmd-server/server.go): they run beside the other commands, not after
 * them. A failure is a gRPC error, as KubeVirt returns it; a command that ran answers success with its exit
 * code and stdout, whatever the code.
 */
export function probeHandlers(
  guestCommands: Pick<GuestCommands, 'ping' | 'exec'>,
  log: Logger,
): Required<Pick<CmdHandlers, 'guestPing' | 'exec'>> {
  const noted = (what: string, err: unknown): never => {
    log.v(3).info('probe command failed', { command: what, reason: err });
    throw err;
  };
  return {
    guestPing: async (req): Promise<M.GuestPingResponse> => {
      await guestCommands
        .ping(req.domainName, req.timeoutSeconds)
        .catch((err: unknown) => noted('GuestPing', err));
      return { response: ok() };
    },
    exec: async (req, signal): Promise<M.ExecResponse> => {
      const execReq = {
        domainName: req.domainName,
        command: req.Command,
        args: req.Args,
        timeoutSeconds: req.timeoutSeconds,
      };
      const r = await guestCommands.exec(execReq, signal).catch((err: unknown) => noted('Exec', err));
      return { response: ok(), exitCode: r.exitCode, stdOut: r.stdOut };
    },
  };
}

/** Runs commands one at a time, in arrival order (a sync never overlaps a shutdown or another sync). */
export function exclusive(): <T>(fn: () => Promise<T>) => Promise<T> {
  let chain: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
}

/** KubeVirt's SignalTargetPodCleanup condition: this Pod is the VMI's migration target. */
export function isMigrationTargetPod(vmi: VirtualMachineInstance, podName: string | undefined): boolean {
  return podName !== undefined && podName !== '' && vmi.status?.migrationState?.targetPod === podName;
}

type VmiCommand = (
  what: string,
  fn: (vmi: VirtualMachineInstance, req: M.VMIRequest) => Promise<void>,
) => (req: M.VMIRequest) => Promise<M.Response>;

/** The migration RPCs (kubevirt cmd-server/server.go): answered in-band, run one at a time with the rest. */
function migrationHandlers(
  d: HandlerDeps,
  vmiCommand: VmiCommand,
  oneAtATime: ReturnType<typeof exclusive>,
): Partial<CmdHandlers> {
  const mig = d.migration;
  if (mig === undefined) return {};
  return {
    migrateVirtualMachine: (req: M.MigrationRequest) =>
      oneAtATime(() =>
        inBand('MigrateVirtualMachine', d.log, async () => {
          const vmi = decodeVmi(req.vmi?.vmiJson);
          await mig.migrate(vmi, parseMigrationOptions(req.options));
        }),
      ),
    cancelVirtualMachineMigration: vmiCommand('CancelVirtualMachineMigration', (vmi) => {
      mig.cancelMigration(vmi);
      return Promise.resolve();
    }),
    syncMigrationTarget: vmiCommand('SyncMigrationTarget', (vmi, req) =>
      mig.prepareMigrationTarget(vmi, req.options),
    ),
    finalizeVirtualMachineMigration: vmiCommand('FinalizeVirtualMachineMigration', (vmi) =>
      mig.finalizeMigrationTarget(vmi),
    ),
    signalTargetPodCleanup: vmiCommand('SignalTargetPodCleanup', (vmi) => {
      if (isMigrationTargetPod(vmi, d.podName)) {
        d.log.info('signalled to clean up the migration target pod', { pod: d.podName });
        d.requestExit?.();
      }
      return Promise.resolve();
    }),
  };
}

export function cmdHandlers(handlerDeps: HandlerDeps): CmdHandlers {
  const { manager: m, guest: g, log } = handlerDeps;
  const oneAtATime = exclusive();
  const vmiCommand =
    (what: string, fn: (vmi: VirtualMachineInstance, req: M.VMIRequest) => Promise<void>) =>
    (req: M.VMIRequest): Promise<M.Response> =>
      oneAtATime(() => inBand(what, log, () => fn(decodeVmi(req.vmi?.vmiJson), req)));
  const payload = <T>(what: string, fn: () => Promise<T>): Promise<Payload<T>> => withPayload(what, log, fn);
  return {
    syncVirtualMachine: vmiCommand('SyncVirtualMachine', async (vmi, req) => {
      await m.sync(vmi, req.options);
      handlerDeps.afterSync?.();
    }),
    shutdownVirtualMachine: vmiCommand('ShutdownVirtualMachine', () => m.shutdown()),
    killVirtualMachine: vmiCommand('KillVirtualMachine', () => m.kill()),
    deleteVirtualMachine: vmiCommand('DeleteVirtualMachine', () => m.delete()),
    pauseVirtualMachine: vmiCommand('PauseVirtualMachine', () => m.pause()),
    unpauseVirtualMachine: vmiCommand('UnpauseVirtualMachine', () => m.unpause()),
    softRebootVirtualMachine: vmiCommand('SoftRebootVirtualMachine', () => m.softReboot()),
    resetVirtualMachine: vmiCommand('ResetVirtualMachine', () => m.reset()),
    syncVirtualMachineCpUs: vmiCommand('SyncVirtualMachineCPUs', async (vmi) => {
      const vcpus = await updateVcpus(m, vmi);
      log.info('VMI vCPUs updated', { vcpus });
      handlerDeps.afterSync?.();
    }),
    syncVirtualMachineMemory: vmiCommand('SyncVirtualMachineMemory', async (vmi) => {
      const requestedBytes = await updateGuestMemory(m, vmi);
      log.info('VMI guest memory updated', { requestedBytes });
      handlerDeps.afterSync?.();
    }),
    freezeVirtualMachine: (req: M.FreezeRequest) =>
      oneAtATime(() =>
        inBand('FreezeVirtualMachine', log, async () => {
          decodeVmi(req.vmi?.vmiJson);
          await g.freeze(req.unfreezeTimeoutSeconds);
        }),
      ),
    unfreezeVirtualMachine: vmiCommand('UnfreezeVirtualMachine', async () => {
      await g.unfreeze();
    }),
    ping: () => Promise.resolve(ok()),
    getDomain: async (): Promise<M.DomainResponse> => {
      const r = await payload('GetDomain', async () => {
        const fsFreezeStatus = await g.freezeStatus();
        return (await m.domainJson({ fsFreezeStatus })) ?? null;
      });
      return { response: empty(r.response), domain: r.value == null ? '' : JSON.stringify(r.value) };
    },
    getDomainStats: async (): Promise<M.DomainStatsResponse> => {
      const r = await payload('GetDomainStats', async () => (await g.stats()) ?? null);
      return { response: r.response, domainStats: r.value == null ? '' : JSON.stringify(r.value) };
    },
    getGuestInfo: async (): Promise<M.GuestInfoResponse> => {
      const r = await payload('GetGuestInfo', () => g.guestInfo());
      return {
        response: r.response,
        guestInfoResponse: r.value === undefined ? '' : JSON.stringify(r.value),
      };
    },
    ...guestListHandlers(g, log),
    ...probeHandlers(g, log),
    getQemuVersion: async (): Promise<M.QemuVersionResponse> => {
      const r = await payload('GetQemuVersion', async () => (await getVersion(m.conn)).text);
      return { response: r.response, version: r.value ?? '' };
    },
    getAppliedVmiChecksum: () => Promise.resolve({ response: ok(), checksum: m.appliedChecksum }),
    ...migrationHandlers(handlerDeps, vmiCommand, oneAtATime),
  };
}
