/**
 * The launcher role (kubevirt cmd/virt-launcher): its own libvirt under --root, KVM or TCG as found out,
 * the Cmd server on `<root>/var/run/kubevirt/sockets/launcher-sock`, domain events to the handler's Notify
 * socket, the VMI's serial console relay. On shutdown (the signal aborts): ACPI shutdown of the guest for
 * the grace period, then destroy, then libvirt is stopped; resolves once everything is down.
 */
import { constants as fsConstants } from 'node:fs';
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { realClock, type Clock } from '../kernel/clock.ts';
import { KvError } from '../kernel/errors/errors.ts';
import type { Logger } from '../kernel/log/log.ts';
import { runRole, untilAborted, type RoleContext, type RoleWork } from '../kernel/runtime/role.ts';
import { DomainEventHub, getDomainCapabilities, LibvirtConnection } from '../libvirt/index.ts';
import { listenUnix, newCmdServer, podLayout, shutdownServer, type PodLayout } from '../rpc/index.ts';
import { cmdHandlers } from './cmd-handlers.ts';
import { ownedDir } from '../libvirt/daemon/identity.ts';
import { startLauncherLibvirt, type LauncherLibvirt } from '../libvirt/daemon/libvirt-daemon.ts';
import { detectEmulation, type EmulationMode } from './emulation/emulation.ts';
import { runKvmProbe } from './emulation/kvm-probe.ts';
import { AgentPoller, type GuestFacts } from './agent-poller.ts';
import { GuestOps } from './guest-ops.ts';
import { GuestDhcp } from './network/guest-dhcp.ts';
import { readPodInterfaces } from './network/pod-interfaces.ts';
import { listenPortForward } from './network/port-forward.ts';
import { DomainManager } from './manager.ts';
import { maxVcpusOf, usableCpuModels } from './node-labeller/facts.ts';
import { DomainNotifier } from './notifier.ts';
import { SerialRelay } from './serial/relay.ts';
import type { HostFacts } from './sync/context.ts';

export interface LauncherOptions {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly gracePeriodSeconds: number;
  readonly emulation: EmulationMode;
  readonly root: string;
  readonly log: Logger;
  /** Shared QEMU capabilities cache for libvirt (local mode, tests). */
  readonly qemuCapsCache?: string;
  readonly clock?: Clock;
}

const ARCH = 'x86_64';
const MACHINE = 'q35';

/**
 * Whether files in dir can be opened with O_DIRECT (tmpfs cannot): decides cache=none. The directory is the
 * daemons' user's: the probe file is new (O_EXCL) and never a link's target (O_NOFOLLOW).
 */
export async function supportsDirectIo(dir: string): Promise<boolean> {
  const probe = join(dir, `.direct-io-probe-${process.pid}`);
  const flags = fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW | fsConstants.O_WRONLY;
  try {
    const fh = await open(probe, flags | fsConstants.O_DIRECT, 0o600);
    await fh.close();
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
  }
}

/**
 * Directories QEMU reads or writes, owned by the daemons' user where it must create files. The image volumes
 * (containerDisks, kernel boot) are left alone: in a Pod the kubelet mounts them read-only. The empty-disk
 * directory lies in libvirt's runtime directory, which is the daemons' user's: it is made by descriptor.
 */
async function prepareRoot(layout: PodLayout, lv: LauncherLibvirt): Promise<void> {
  if (layout.root !== '/') await chmod(layout.root, 0o755);
  // Only what we create: in a Pod these are emptyDirs the kubelet made (not ours to chmod).
  for (const d of [layout.privateDir, layout.ephemeralDiskDir, layout.hotplugDiskDir]) {
    if ((await mkdir(d, { recursive: true })) !== undefined) await chmod(d, 0o755);
  }
  const owned = [
    { root: layout.ephemeralDiskDir, rel: '' },
    { root: layout.hotplugDiskDir, rel: '' },
    {
      root: layout.libvirtRuntimeDir,
      rel: relative(layout.libvirtRuntimeDir, layout.emptyDiskDir),
      mode: 0o755,
    },
  ];
  for (const d of owned) await (await ownedDir({ ...d, id: lv.identity })).close();
}

async function hostFacts(
  opts: LauncherOptions,
  conn: LibvirtConnection,
  ephemeral: string,
): Promise<HostFacts> {
  const decision = await detectEmulation({
    mode: opts.emulation,
    conn,
    arch: ARCH,
    log: opts.log,
    probe: (qemu) =>
      runKvmProbe({ qemu, accel: 'kvm', ...(opts.clock !== undefined && { clock: opts.clock }) }),
  });
  const virtType = decision.emulation ? 'qemu' : 'kvm';
  // The converter's default machine type: its vCPU maximum is the one a VMI meets.
  const domCaps = await getDomainCapabilities(conn, { virtType, arch: ARCH, machine: MACHINE });
  const maxVcpus = maxVcpusOf(domCaps);
  return {
    root: opts.root,
    arch: 'amd64',
    emulation: decision.emulation,
    hostCpuModels: usableCpuModels(domCaps),
    ...(maxVcpus !== undefined && { maxVcpus }),
    directIo: await supportsDirectIo(ephemeral),
  };
}

async function start(opts: LauncherOptions, ctx: RoleContext): Promise<RoleWork> {
  const clock = opts.clock ?? realClock;
  const root = resolve(opts.root);
  const log = ctx.log;
  const layout = podLayout(root);
  // Read before the Cmd socket listens, so before the handler sets up the Pod network (pod-interfaces.ts).
  const podInterfaces = readPodInterfaces(log);
  await mkdir(root, { recursive: true });
  const lv = await startLauncherLibvirt({
    root,
    log,
    clock,
    ...(opts.qemuCapsCache !== undefined && { capsCache: opts.qemuCapsCache }),
  });
  ctx.defer(() => lv.stop());
  await prepareRoot(layout, lv);
  const conn = await LibvirtConnection.open({ socketPath: lv.socketPath, uri: lv.uri, log, clock });
  ctx.defer(() => conn.close());
  const lost = new Promise<never>((_, reject): void => {
    conn.onClose((err) => {
      if (err !== undefined)
        reject(new KvError('KV_ERR_TRANSPORT', 'lost the connection to libvirt', { cause: err }));
    });
  });
  lost.catch(() => undefined);
  // The accelerator and the domain capabilities wait for libvirt's probe of QEMU, the longest step of a start:
  // the launcher serves meanwhile (the handler finds it and sets up the Pod network), and a sync waits for them.
  const host = hostFacts({ ...opts, root }, conn, layout.ephemeralDiskDir);
  const hostFailed = host.then(() => new Promise<never>(() => undefined));
  hostFailed.catch(() => undefined);
  const serial = await SerialRelay.listen({ publicPath: layout.serialSocket(opts.uid), log, clock });
  ctx.defer(() => serial.close());
  const id = { name: opts.name, namespace: opts.namespace, uid: opts.uid };
  const portForward = await listenPortForward({ path: layout.portForwardSocket, log });
  ctx.defer(() => portForward.close());
  const dhcp = new GuestDhcp({ root, log, podInterfaces: await podInterfaces });
  ctx.defer(() => dhcp.close());
  let migrationChanged = (): void => undefined;
  let requestExit = (): void => undefined;
  const exitRequested = new Promise<void>((resolve) => {
    requestExit = resolve;
  });
  const manager = new DomainManager({
    ...{ conn, id, root, host, identity: lv.identity, serial, dhcp, log, clock },
    migrationChanged: (): void => {
      migrationChanged();
    },
    // The guest runs on the target now: like KubeVirt's launcher once its QEMU exited, this one ends, and its Pod
    // completes (after the last domain report went to the handler, in run below).
    migratedAway: (): void => {
      log.info('the guest migrated away: the launcher ends');
      requestExit();
    },
  });
  const guest = new GuestOps(manager, log);
  const notifier = new DomainNotifier({
    socketPath: layout.notifySocket,
    manager,
    hub: new DomainEventHub(conn, log),
    log,
    fsFreezeStatus: (): Promise<string> => guest.freezeStatus(),
  });
  await notifier.start();
  migrationChanged = (): void => {
    notifier.notifyCurrent();
  };
  const poller = new AgentPoller({
    agentConnected: (): boolean => manager.isAgentConnected,
    read: async (): Promise<GuestFacts> => ({
      osInfo: await guest.osInfo(),
      fsFreezeStatus: await guest.freezeStatus(),
      interfaces: await guest.interfaces(),
    }),
    note: (facts): void => {
      manager.noteGuestFacts(facts);
    },
    notify: (): void => {
      notifier.notifyCurrent();
    },
    clock,
    log,
  });
  poller.start();
  ctx.defer(() => {
    poller.stop();
  });
  const server = newCmdServer(
    cmdHandlers({ manager, guest, log, migration: manager, requestExit, podName: process.env['POD_NAME'] }),
  );
  // Only the launcher's user (and root: the handler) may reach the Cmd socket.
  await listenUnix(server, layout.launcherSocket, { mode: 0o600 });
  log.info('launcher ready', { socket: layout.launcherSocket });
  const run = async (signal: AbortSignal): Promise<void> => {
    await Promise.race([untilAborted(signal), lost, exitRequested, hostFailed]);
    const outcome = await manager.stopGuest(opts.gracePeriodSeconds * 1000);
    log.info('guest stopped', { outcome, gracePeriodSeconds: opts.gracePeriodSeconds });
    await clock.sleep(200);
    await notifier.close();
    guest.close();
    await shutdownServer(server, 1000, clock);
  };
  return { run };
}

export function runLauncherRole(o: LauncherOptions, signal: AbortSignal): Promise<void> {
  const log = o.log.with({ namespace: o.namespace, name: o.name, uid: o.uid });
  return runRole({ component: 'launcher', log, start: (ctx) => start(o, ctx) }, signal);
}
