/**
 * The domain of the launcher's one VMI (kubevirt virtwrap/manager.go LibvirtDomainManager): sync (convert,
 * prepare, define, start paused, attach the console relay, resume, hotplug disks and DRA host devices), the
 * lifecycle commands and the domain as the handler sees it. Failures throw; the Cmd handlers turn them into
 * `{success:false}`.
 */
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { realClock, type Clock } from '../kernel/clock.ts';
import { errorMessage, KvError } from '../kernel/errors/errors.ts';
import type { Logger } from '../kernel/log/log.ts';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import {
  DOMAIN_SHUTDOWN,
  attachDevice,
  createDomain,
  defineDomain,
  destroyDomain,
  detachDeviceByAlias,
  getDomainState,
  getDomainXml,
  isNoDomain,
  lookupDomainByName,
  rebootDomain,
  resetDomain,
  resumeDomain,
  shutdownDomain,
  suspendDomain,
  undefineDomain,
  type DomainRef,
  type DomainState,
  type LibvirtConnection,
} from '../libvirt/index.ts';
import {
  attachFailureMessage,
  podLayout,
  vmiSpecChecksum,
  type AttachFailure,
  type DomainJson,
  type HostDeviceJson,
  type VirtualMachineOptions,
} from '../rpc/index.ts';
import {
  claimImages,
  domainXml,
  toDomain,
  type ConverterContext,
  type PodLink,
  type DomainSpec,
  type HostDevice,
} from './converter/index.ts';
import type { GuestFacts } from './agent-poller.ts';
import { ownedDir, type Identity } from '../libvirt/daemon/identity.ts';
import { MigrationSource } from './migration/source.ts';
import { IncomingMigration } from './migration/incoming.ts';
import type { MigrationOptions } from './migration/options.ts';
import {
  definedMachine,
  domainJson,
  withMachine,
  type DomainIdentity,
  type DomainStatusExtras,
} from './report/domain-json.ts';
import { definedMacs, withDefinedMacs } from './network/defined-macs.ts';
import { liveHostDevices } from './report/live-host-devices.ts';
import type { GuestDhcp } from './network/guest-dhcp.ts';
import { kubevirtState, NON_EXISTENT, type KubevirtState } from './report/state.ts';
import type { SerialRelay } from './serial/relay.ts';
import { claimDiskFormats, formatsInUse } from './sync/claim-formats.ts';
import { findContainerDiskImages } from './sync/container-disks.ts';
import { diskDeviceXml, hostDeviceXml } from './sync/device-xml.ts';
import { containerDiskFormats } from './sync/image-format.ts';
import { syncContext, type HostFacts } from './sync/context.ts';
import { podLinkCandidates, readPodLinks } from './sync/pod-links.ts';
import { isDown, planSync, type SyncPlan } from './sync/plan.ts';
import { prepareDomain } from './sync/prestart.ts';

export interface ManagerOptions {
  readonly conn: LibvirtConnection;
  readonly id: DomainIdentity;
  /** The launcher's root directory (the Pod layout's). */
  readonly root: string;
  /** Found while the launcher already answers: a sync waits for them. */
  readonly host: Promise<HostFacts>;
  /** The daemons' user: everything a domain touches is handed to it. */
  readonly identity: Identity;
  readonly serial: SerialRelay;
  /** Serves the guest's Pod network interfaces (default: none are served). */
  readonly dhcp?: Pick<GuestDhcp, 'serve'>;
  readonly log: Logger;
  readonly clock?: Clock;
  /** The migration metadata changed (the notifier sends the domain). */
  readonly migrationChanged?: () => void;
  /** The guest migrated away: the launcher may end. */
  readonly migratedAway?: () => void;
}

/** How long a prepared migration target waits for the incoming domain's console. */
const INCOMING_CONSOLE_WAIT_MS = 30 * 60 * 1000;

interface Applied {
  readonly vmi: VirtualMachineInstance;
  readonly domain: DomainSpec;
  readonly xml: string;
  readonly checksum: string;
}

const LIVE_AND_CONFIG = { live: true, config: true };

export class DomainManager {
  readonly domainName: string;
  private applied: Applied | undefined;
  /** The MACs of the defined domain's interfaces, by alias. */
  private macs: ReadonlyMap<string, string> = new Map();
  /** The live domain's host devices, read after each sync that has or had any. */
  private hostDevices: HostDeviceJson[] = [];
  private pausedByUser = false;
  /** From the agent-lifecycle events (noteAgentState); a new domain starts without its agent. */
  private agentConnected = false;
  private guestFacts: GuestFacts | undefined;
  private readonly log: Logger;
  readonly clock: Clock;
  /** The source side of this domain's migrations. */
  readonly migration: MigrationSource;
  /** The target side: the end of the migration this launcher was prepared for. */
  private readonly incoming: IncomingMigration;

  constructor(private readonly o: ManagerOptions) {
    this.domainName = `${o.id.namespace}_${o.id.name}`;
    this.log = o.log.with({ domain: this.domainName });
    this.clock = o.clock ?? realClock;
    this.migration = new MigrationSource({
      conn: o.conn,
      domain: (): Promise<DomainRef> => this.require(),
      domainName: this.domainName,
      layout: podLayout(o.root),
      prepareProxyDir: (): Promise<void> => this.prepareProxyDir(),
      changed: (): void => {
        o.migrationChanged?.();
      },
      migratedAway: (): void => {
        o.migratedAway?.();
      },
      clock: this.clock,
      log: this.log,
    });
    this.incoming = new IncomingMigration({
      conn: o.conn,
      domain: (): Promise<DomainRef> => this.require(),
      changed: (): void => {
        o.migrationChanged?.();
      },
      clock: this.clock,
      log: this.log,
    });
  }

  /** A lifecycle event of the domain (the notifier's): a prepared target learns its guest arrived. */
  noteLifecycle(event: string, detail: string): void {
    this.incoming.note(event, detail);
  }

  /** The migration proxy's socket directory, where the daemons' QEMU listens or connects. */
  private async prepareProxyDir(): Promise<void> {
    const layout = podLayout(this.o.root);
    const rel = relative(layout.shareDir, layout.migrationProxyDir);
    await (await ownedDir({ root: layout.shareDir, rel, id: this.o.identity, mode: 0o755 })).close();
  }

  /**
   * SyncMigrationTarget (kubevirt live-migration-target.go prepareMigrationTarget): what the incoming domain
   * needs before it arrives (the converted domain's files and directories, the proxy's socket directory), and
   * the console relay attached once QEMU binds the serial port.
   */
  async prepareMigrationTarget(
    vmi: VirtualMachineInstance,
    options: VirtualMachineOptions | undefined,
  ): Promise<void> {
    this.checkIdentity(vmi);
    const ctx = await this.context(vmi, options);
    const domain = toDomain(vmi, ctx);
    const xml = domainXml(domain);
    await prepareDomain({ vmi, domain, ctx, identity: this.o.identity, log: this.log });
    await this.prepareProxyDir();
    const migration = vmi.status?.migrationState?.migrationUid ?? '';
    // A target prepared without a migration uid has no record to end: its arrival is not watched.
    if (migration !== '') this.incoming.expect(migration);
    this.applied = { vmi, domain, xml, checksum: vmiSpecChecksum(vmi) };
    if (vmi.spec.domain.devices.autoattachSerialConsole === false) return;
    const serial = ctx.layout.serialSocket(vmi.metadata.uid ?? '');
    void this.o.serial.attach(serial, INCOMING_CONSOLE_WAIT_MS).catch((err: unknown) => {
      this.log.warning('the incoming domain console did not appear', { reason: err });
    });
    this.log.info('migration target prepared');
  }

  /** FinalizeVirtualMachineMigration: the guest must run here now (no NIC to reconnect, no agent clock). */
  async finalizeMigrationTarget(vmi: VirtualMachineInstance): Promise<void> {
    this.checkIdentity(vmi);
    const state = await getDomainState(this.o.conn, await this.require());
    if (state.state !== 'running' && state.state !== 'paused')
      throw new KvError('KV_ERR_INVALID', `the migrated domain is ${state.state} (${state.reason})`);
  }

  /** Starts the migration of the running domain (source side); returns once it runs. */
  async migrate(vmi: VirtualMachineInstance, options: MigrationOptions): Promise<void> {
    this.checkIdentity(vmi);
    await this.migration.migrate(vmi, options);
  }

  cancelMigration(vmi: VirtualMachineInstance): void {
    this.checkIdentity(vmi);
    this.migration.cancel();
  }

  get conn(): LibvirtConnection {
    return this.o.conn;
  }

  get appliedChecksum(): string {
    return this.applied?.checksum ?? '';
  }

  /** The libvirt domain, or undefined when none is defined. */
  async lookup(): Promise<DomainRef | undefined> {
    try {
      return await lookupDomainByName(this.o.conn, this.domainName);
    } catch (err) {
      if (isNoDomain(err)) return undefined;
      throw err;
    }
  }

  /** The domain or a failure naming what is missing. */
  async require(): Promise<DomainRef> {
    const ref = await this.lookup();
    if (ref === undefined) throw new KvError('KV_ERR_INVALID', `domain ${this.domainName} does not exist`);
    return ref;
  }

  /** Refuses a VMI that is not this launcher's (another name, namespace or uid). */
  checkIdentity(vmi: VirtualMachineInstance): void {
    const { name, namespace, uid } = vmi.metadata;
    const id = this.o.id;
    if (name !== id.name || namespace !== id.namespace || (id.uid !== '' && uid !== id.uid)) {
      throw new KvError(
        'KV_ERR_INVALID',
        `VMI ${namespace ?? ''}/${name ?? ''} (uid ${uid ?? ''}) is not this launcher's ${id.namespace}/${id.name} (uid ${id.uid})`,
      );
    }
  }

  private async plan(
    vmi: VirtualMachineInstance,
    domain: DomainSpec,
    xml: string,
  ): Promise<{ ref: DomainRef | undefined; plan: SyncPlan }> {
    const ref = await this.lookup();
    const state = ref === undefined ? undefined : (await getDomainState(this.o.conn, ref)).state;
    const applied = this.applied;
    const plan = planSync({
      state,
      appliedXml: applied?.xml,
      wantedXml: xml,
      appliedDisks: applied?.domain.devices.disks ?? [],
      wantedDisks: domain.devices.disks,
      appliedHostDevices: applied?.domain.devices.hostDevices ?? [],
      wantedHostDevices: domain.devices.hostDevices,
      vmiPhase: vmi.status?.phase,
      pausedByUser: this.pausedByUser,
    });
    const summary = {
      ...plan,
      attach: plan.attach.length,
      detach: plan.detach.length,
      detachHostDevices: plan.detachHostDevices.length,
      attachHostDevices: plan.attachHostDevices.length,
    };
    this.log.v(2).info('sync planned', { state: state ?? 'absent', ...summary });
    return { ref, plan };
  }

  /** Each tap interface's Pod link in this namespace (MTU, MAC); a link not found is logged and left out. */
  private async podLinks(
    vmi: VirtualMachineInstance,
    base: ConverterContext,
  ): Promise<ReadonlyMap<string, PodLink>> {
    const links = await readPodLinks(base.root, podLinkCandidates(vmi, base.interfaceDomainAttachment));
    if (links.missing.length > 0) {
      this.log.warning('no pod interface link found, the domain interface gets no MTU', {
        interfaces: links.missing,
      });
    }
    return links.byInterface;
  }

  /**
   * The converter context of one sync: the options and host facts, and what the launcher finds in its Pod
   * (the images and their formats, the Pod links). Claim images the domain already has keep the format they
   * had.
   */
  private async context(
    vmi: VirtualMachineInstance,
    options: VirtualMachineOptions | undefined,
  ): Promise<ConverterContext> {
    const base = syncContext(await this.o.host, options);
    const images = await findContainerDiskImages(vmi, base.layout);
    const formats = await containerDiskFormats(vmi, images, {
      known: base.containerDiskFormats,
      identity: this.o.identity,
    });
    const claims = claimImages(vmi, base);
    const claimFormats = await claimDiskFormats(claims, {
      known: formatsInUse(this.applied?.domain.devices.disks ?? [], claims),
      identity: this.o.identity,
    });
    return {
      ...base,
      containerDiskImages: images,
      containerDiskFormats: formats,
      claimDiskFormats: claimFormats,
      podLinks: await this.podLinks(vmi, base),
      backendStorage: existsSync(base.layout.backendStorageMetaDir),
      // The Pod has the socket directory only with its virtiofsd containers (the controller's
      // LauncherPodConfig.virtiofsd).
      virtiofsServed: existsSync(base.layout.virtiofsDir),
    };
  }

  async sync(vmi: VirtualMachineInstance, options: VirtualMachineOptions | undefined): Promise<void> {
    this.checkIdentity(vmi);
    const ctx = await this.context(vmi, options);
    const domain = toDomain(vmi, ctx);
    const xml = domainXml(domain);
    const planned = await this.plan(vmi, domain, xml);
    const plan = planned.plan;
    let ref = planned.ref;
    // Every start prepares (a start happens only while the domain is down): config ISOs are made anew.
    if (plan.start || ref === undefined)
      await prepareDomain({ vmi, domain, ctx, identity: this.o.identity, log: this.log });
    let machine = this.applied?.domain.os.type.machine;
    if (plan.define || ref === undefined) {
      ref = await defineDomain(this.o.conn, xml);
      // libvirt expands an alias such as q35 to the versioned type it defined and picks the MACs the VMI left
      // open; that is what is reported.
      const definedXml = await getDomainXml(this.o.conn, ref);
      machine = definedMachine(definedXml);
      this.macs = definedMacs(definedXml);
    }
    const defined = withDefinedMacs(withMachine(domain, machine), this.macs);
    await this.o.dhcp?.serve(vmi, defined);
    if (plan.start) await this.start(ref, vmi, ctx.layout.serialSocket(vmi.metadata.uid ?? ''));
    if (plan.resume) await resumeDomain(this.o.conn, ref);
    for (const d of plan.attach)
      await this.attach(ref, { kind: 'volume', name: d.alias.name }, diskDeviceXml(d));
    for (const d of plan.detach) {
      await detachDeviceByAlias(this.o.conn, ref, `ua-${d.alias.name}`, LIVE_AND_CONFIG);
    }
    try {
      await this.hotplugHostDevices(ref, plan);
    } finally {
      await this.readHostDevices(ref, defined);
    }
    this.applied = { vmi, domain: defined, xml, checksum: vmiSpecChecksum(vmi) };
  }

  /** Attaches one device live; libvirt's refusal names the device (lib/rpc attach-failure.ts). */
  private async attach(ref: DomainRef, device: Omit<AttachFailure, 'cause'>, xml: string): Promise<void> {
    try {
      await attachDevice(this.o.conn, ref, xml, LIVE_AND_CONFIG);
    } catch (err) {
      const code = err instanceof KvError ? err.code : 'KV_ERR_LIBVIRT';
      throw new KvError(code, attachFailureMessage({ ...device, cause: errorMessage(err) }), { cause: err });
    }
  }

  /** The live domain's host devices with their guest addresses, when the domain has or had any. */
  private async readHostDevices(ref: DomainRef, domain: DomainSpec): Promise<void> {
    if (domain.devices.hostDevices.length === 0 && this.hostDevices.length === 0) return;
    try {
      this.hostDevices = liveHostDevices(await getDomainXml(this.o.conn, ref));
    } catch (err) {
      this.log.warning('could not read the domain host devices', { error: errorMessage(err) });
    }
  }

  /**
   * Detaches the DRA host devices the VMI lost (or that changed), then attaches the ones it gained. A live
   * detach is only asked for: the guest may release a PCI device later (libvirt's device-removed event).
   */
  private async hotplugHostDevices(ref: DomainRef, plan: SyncPlan): Promise<void> {
    const { detachHostDevices: detach, attachHostDevices: attach } = plan;
    if (detach.length === 0 && attach.length === 0) return;
    const aliases = (hs: readonly HostDevice[]): string[] => hs.map((h) => `ua-${h.alias.name}`);
    for (const alias of aliases(detach)) await detachDeviceByAlias(this.o.conn, ref, alias, LIVE_AND_CONFIG);
    for (const h of attach)
      await this.attach(ref, { kind: 'host device', name: h.alias.name }, hostDeviceXml(h));
    this.log.info('host devices hotplugged', { detached: aliases(detach), attached: aliases(attach) });
  }

  /** The guest agent connected or went away (libvirt's agent-lifecycle event). */
  noteAgentState(connected: boolean): void {
    this.agentConnected = connected;
  }

  get isAgentConnected(): boolean {
    return this.agentConnected;
  }

  /** What the agent last said of the guest (agent-poller.ts); reported with the domain. */
  noteGuestFacts(facts: GuestFacts): void {
    this.guestFacts = facts;
  }

  /** Start paused, attach the console relay while no output can be lost, then let the vCPUs run. */
  private async start(ref: DomainRef, vmi: VirtualMachineInstance, qemuSerial: string): Promise<void> {
    this.agentConnected = false;
    const running = await createDomain(this.o.conn, ref, { paused: true });
    const hasSerial = vmi.spec.domain.devices.autoattachSerialConsole !== false;
    if (hasSerial) await this.o.serial.attach(qemuSerial);
    if (vmi.spec.startStrategy === 'Paused') {
      this.pausedByUser = true;
      this.log.info('domain started paused (startStrategy Paused)');
      return;
    }
    await resumeDomain(this.o.conn, running);
    this.log.info('domain started', { serial: hasSerial });
  }

  async state(): Promise<DomainState | undefined> {
    const ref = await this.lookup();
    return ref === undefined ? undefined : getDomainState(this.o.conn, ref);
  }

  async kubevirtState(): Promise<KubevirtState> {
    const s = await this.state();
    return s === undefined ? NON_EXISTENT : kubevirtState(s);
  }

  /** api.Domain JSON of the current domain; undefined when none exists. */
  async domainJson(extras?: DomainStatusExtras, state?: KubevirtState): Promise<DomainJson | undefined> {
    const st = state ?? (await this.kubevirtState());
    if (st === NON_EXISTENT && state === undefined) return undefined;
    return domainJson({
      id: this.o.id,
      spec: this.applied?.domain,
      state: st,
      extras: {
        agentConnected: this.agentConnected,
        hostDevices: this.hostDevices,
        migration: this.migration.metadata ?? this.incoming.metadata,
        ...(this.guestFacts !== undefined && {
          osInfo: this.guestFacts.osInfo,
          fsFreezeStatus: this.guestFacts.fsFreezeStatus,
          interfaces: this.guestFacts.interfaces,
        }),
        ...extras,
      },
    });
  }

  /** ACPI power button, as KubeVirt's ShutdownVirtualMachine; nothing to do when the domain is down. */
  async shutdown(): Promise<void> {
    const ref = await this.lookup();
    if (ref === undefined || isDown((await getDomainState(this.o.conn, ref)).state)) return;
    await shutdownDomain(this.o.conn, ref, DOMAIN_SHUTDOWN.ACPI_POWER_BTN);
  }

  /** Stops QEMU (SIGTERM first, SIGKILL when that fails); nothing to do when the domain is down. */
  async kill(): Promise<void> {
    const ref = await this.lookup();
    if (ref === undefined || isDown((await getDomainState(this.o.conn, ref)).state)) return;
    try {
      await destroyDomain(this.o.conn, ref, { graceful: true });
    } catch (err) {
      this.log.warning('graceful destroy failed, destroying', { reason: err });
      await destroyDomain(this.o.conn, ref);
    }
  }

  /** Undefines the domain (kept running domains become transient: kill first). */
  async delete(): Promise<void> {
    const ref = await this.lookup();
    if (ref === undefined) return;
    await undefineDomain(this.o.conn, ref);
    this.applied = undefined;
    this.pausedByUser = false;
  }

  async pause(): Promise<void> {
    await suspendDomain(this.o.conn, await this.require());
    this.pausedByUser = true;
  }

  async unpause(): Promise<void> {
    await resumeDomain(this.o.conn, await this.require());
    this.pausedByUser = false;
  }

  async softReboot(): Promise<void> {
    await rebootDomain(this.o.conn, await this.require(), 0);
  }

  async reset(): Promise<void> {
    await resetDomain(this.o.conn, await this.require());
  }

  /** ACPI shutdown, up to graceMs for the guest to go down, then destroy (the launcher's SIGTERM path). */
  async stopGuest(graceMs: number): Promise<'down' | 'shutdown' | 'destroyed'> {
    const ref = await this.lookup();
    if (ref === undefined || isDown((await getDomainState(this.o.conn, ref)).state)) return 'down';
    await shutdownDomain(this.o.conn, ref, DOMAIN_SHUTDOWN.ACPI_POWER_BTN).catch((err: unknown) => {
      this.log.warning('ACPI shutdown request failed', { reason: err });
    });
    const deadline = this.clock.now() + graceMs;
    while (this.clock.now() < deadline) {
      if (isDown((await getDomainState(this.o.conn, ref)).state)) return 'shutdown';
      await this.clock.sleep(100);
    }
    await this.kill();
    return 'destroyed';
  }
}
