/**
 * The handler's migration controller (kubevirt pkg/virt-handler/migration-source.go and migration-target.go),
 * keyed by `ns/name`, its two parts on two work queues as KubeVirt's: the source part looks at this node's VMIs
 * (by the nodeName label), the target part at the VMIs labelled with this node as the migration target, so a
 * failing pass of one part never holds the other back. Each part pings its launcher (the one LauncherClients trusts on this
 * node: the target Pod on the target), reads the domain, does what source.ts or target.ts says (the launcher's
 * migration RPCs, the migration proxies) and patches the VMI within that part's scope. While either part is
 * live the key is looked at again every second: the domain's migration record is polled, not notified. A
 * proxy whose VMI left this node's part is stopped.
 */
import { VIRTUAL_MACHINE_INSTANCES, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { mergePatch, scopedMergePatch, type PatchScope } from '../../kernel/controller/merge-patch.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import { isDisconnected, type DomainJson, type LauncherClient } from '../../rpc/index.ts';
import type { LauncherClients } from '../launchers/clients.ts';
import { syncOptions, type HandlerClusterConfig } from '../vmi/options.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import type { SourceProxySpec, TargetProxySpec } from '../migration-proxy/manager.ts';
import { isMigrationSource, isMigrationTarget } from './role.ts';
import { SOURCE_PATCH_SCOPE, sourceAction, sourceVmi, type SourceAction } from './source.ts';
import { TARGET_PATCH_SCOPE, targetAction, targetVmi, type TargetAction } from './target.ts';

/** The node's migration proxies (migration-proxy/manager.ts). */
export interface MigrationProxies {
  startTarget(vmiUid: string, spec: TargetProxySpec): Promise<Record<string, number>>;
  startSource(vmiUid: string, spec: SourceProxySpec): Promise<void>;
  stopTarget(vmiUid: string): Promise<void>;
  stopSource(vmiUid: string): Promise<void>;
}

/** The hotplugged volumes of a target launcher Pod, mounted before the domain arrives (hotplug/mounter.ts). */
interface TargetHotplug {
  /** Mounts the VMI's attached volumes into the launcher Pod from the attachment Pod with that uid. */
  mountFromPod(vmi: VirtualMachineInstance, launcherPodUid: string, attachPodUid: string): Promise<void>;
  /** Takes them off again: the migration failed and the target Pod goes. */
  release(vmi: VirtualMachineInstance, launcherPodUid: string): Promise<unknown>;
}

/** The Pod network of a target launcher Pod, set up before the domain arrives (network/setup.ts). */
interface PodNetworkNode {
  prepare(vmi: VirtualMachineInstance, launcherPodUid: string): Promise<void>;
}

export interface HandlerMigrationControllerOptions {
  /** Speaks kubevirt.io. */
  readonly client: KubeClient;
  readonly node: string;
  /** This node's VMIs (kubevirt.io/nodeName=<node>). */
  readonly vmis: StoreReader<VirtualMachineInstance>;
  /** The VMIs migrating to this node (kubevirt.io/migrationTargetNodeName=<node>). */
  readonly targets: StoreReader<VirtualMachineInstance>;
  readonly launchers: LauncherClients;
  /** Undefined: the handler has no migration TLS material, and a migration through it fails saying so. */
  readonly proxies: MigrationProxies | undefined;
  /** Where this node's target proxies listen (the handler's node address). */
  readonly migrationAddress: string;
  readonly config: () => HandlerClusterConfig;
  readonly network?: PodNetworkNode;
  readonly hotplug?: TargetHotplug;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
}

/** How often a migration this node takes part in is looked at again. */
const POLL_MS = 1000;

const NO_PROXIES =
  'this handler has no migration proxy: it was started without --client-cert-file and --client-key-file';

function checked(r: { success: boolean; message: string }, what: string): void {
  if (!r.success) throw new KvError('KV_ERR_LAUNCHER', `${what}: ${r.message}`);
}

interface Observed {
  readonly reach: LauncherReach;
  readonly client: LauncherClient | undefined;
  readonly domain: DomainJson | undefined;
}

export class HandlerMigrationController {
  /** The uid of each VMI whose proxy this node runs, by key and part. */
  private readonly sources = new Map<string, string>();
  private readonly targets = new Map<string, string>();

  constructor(private readonly o: HandlerMigrationControllerOptions) {}

  /** The source part, on the queue of this node's VMIs (KubeVirt's virt-handler-source). */
  readonly reconcileSource = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const vmi = this.o.vmis.get(key);
    if (vmi !== undefined && isMigrationSource(vmi, this.o.node))
      return { requeueAfterMs: await this.source(vmi, ctx) };
    await this.leave(this.sources, key, (uid) => this.proxies().stopSource(uid));
    return undefined;
  };

  /** The target part, on the queue of the VMIs migrating here (KubeVirt's virt-handler-target). */
  readonly reconcileTarget = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const vmi = this.o.targets.get(key);
    if (vmi !== undefined && isMigrationTarget(vmi, this.o.node)) {
      const after = await this.target(vmi, ctx);
      return after === undefined ? undefined : { requeueAfterMs: after };
    }
    await this.leave(this.targets, key, (uid) => this.proxies().stopTarget(uid));
    return undefined;
  };

  private proxies(): MigrationProxies {
    if (this.o.proxies === undefined) throw new KvError('KV_ERR_CONFIG', NO_PROXIES);
    return this.o.proxies;
  }

  /** This node's part in the key's migration is over: its proxy stops. */
  private async leave(
    held: Map<string, string>,
    key: string,
    stop: (uid: string) => Promise<void>,
  ): Promise<void> {
    const uid = held.get(key);
    if (uid === undefined) return;
    await stop(uid);
    held.delete(key);
  }

  private async observe(vmi: VirtualMachineInstance): Promise<Observed> {
    const reach = await this.o.launchers.probe(vmi);
    const client = await this.o.launchers.client(vmi);
    if (client === undefined) return { reach, client, domain: undefined };
    try {
      const r = await client.getDomain();
      checked(r, 'GetDomain');
      return { reach, client, domain: r.payload as DomainJson | undefined };
    } catch (err) {
      // A source launcher whose guest left ends before the target took the VMI over: no domain here any more.
      if (isDisconnected(err)) return { reach, client: undefined, domain: undefined };
      throw err;
    }
  }

  private async source(vmi: VirtualMachineInstance, ctx: ReconcileContext): Promise<number> {
    const seen = await this.observe(vmi);
    const cluster = this.o.config().migrations;
    const action = sourceAction({
      vmi,
      domain: seen.domain,
      launcher: seen.reach,
      ...(cluster !== undefined && { cluster }),
    });
    ctx.log.v(3).info('migration source', { action: action.kind, domain: seen.domain?.Status.Status });
    if (action.kind === 'unresponsive')
      throw new KvError('KV_ERR_LAUNCHER', 'the source launcher stopped answering');
    let domain = seen.domain;
    if (seen.client !== undefined && (action.kind === 'start' || action.kind === 'cancel')) {
      await this.sourceAct(vmi, seen.client, action);
      domain = await this.readDomain(seen.client, domain);
    }
    const next = sourceVmi({ vmi, domain, nowMs: this.o.clock.now() });
    await this.write(vmi, next.vmi, SOURCE_PATCH_SCOPE);
    return Math.min(POLL_MS, next.recheckAfterMs ?? POLL_MS);
  }

  private async sourceAct(
    vmi: VirtualMachineInstance,
    client: LauncherClient,
    action: Extract<SourceAction, { kind: 'start' | 'cancel' }>,
  ): Promise<void> {
    const uid = vmi.metadata.uid ?? '';
    if (action.kind === 'cancel') {
      checked(await client.vmiCommand('cancelVirtualMachineMigration', vmi), 'CancelVirtualMachineMigration');
      this.o.recorder.event(vmi, 'Normal', 'Migrating', 'VirtualMachineInstance is aborting migration.');
      return;
    }
    const podUid = this.o.launchers.paths(vmi)?.podUid;
    if (podUid === undefined) throw new KvError('KV_ERR_LAUNCHER', 'the source launcher Pod is not known');
    this.sources.set(`${vmi.metadata.namespace ?? ''}/${vmi.metadata.name ?? ''}`, uid);
    await this.proxies().startSource(uid, {
      podUid,
      targetAddress: action.targetAddress,
      ports: action.targetPorts,
    });
    const r = await client.call('migrateVirtualMachine', {
      vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
      options: Buffer.from(JSON.stringify(action.options)),
    });
    checked(r, 'MigrateVirtualMachine');
    this.o.recorder.event(vmi, 'Normal', 'Migrating', 'VirtualMachineInstance is migrating.');
  }

  private async target(vmi: VirtualMachineInstance, ctx: ReconcileContext): Promise<number | undefined> {
    const seen = await this.observe(vmi);
    const input = { vmi, node: this.o.node, domain: seen.domain, launcher: seen.reach };
    const action = targetAction({ ...input, nowMs: this.o.clock.now() });
    ctx.log.v(3).info('migration target', { action: action.kind, domain: seen.domain?.Status.Status });
    if (action.kind === 'unresponsive')
      throw new KvError('KV_ERR_LAUNCHER', 'the target launcher stopped answering');
    const proxyPorts = await this.targetAct(vmi, seen.client, action);
    const domain = seen.client === undefined ? seen.domain : await this.readDomain(seen.client, seen.domain);
    const next = targetVmi({
      ...input,
      domain,
      nowMs: this.o.clock.now(),
      migrationAddress: this.o.migrationAddress,
      proxyPorts,
      actionDone: true,
      action,
    });
    await this.write(vmi, next, TARGET_PATCH_SCOPE);
    return action.kind === 'cleanup' ? undefined : POLL_MS;
  }

  /** Does the target's action; the proxy's ports once it listens. */
  private async targetAct(
    vmi: VirtualMachineInstance,
    client: LauncherClient | undefined,
    action: TargetAction,
  ): Promise<Record<string, number> | undefined> {
    const key = `${vmi.metadata.namespace ?? ''}/${vmi.metadata.name ?? ''}`;
    if (action.kind === 'cleanup') await this.cleanup(key, vmi, client, action.failed);
    else if (client === undefined) return undefined;
    else if (action.kind === 'prepare') return this.prepare(key, vmi, client);
    else if (action.kind === 'finalize') await this.finalize(vmi, client);
    return undefined;
  }

  private async finalize(vmi: VirtualMachineInstance, client: LauncherClient): Promise<void> {
    checked(
      await client.vmiCommand('finalizeVirtualMachineMigration', vmi),
      'FinalizeVirtualMachineMigration',
    );
  }

  /**
   * The target's part is over: its proxy stops; after a failure its launcher is told to end (its answer does
   * not matter), its Pod's hotplug mounts come off and it is forgotten; after a success the migrated domain is
   * finalized.
   */
  private async cleanup(
    key: string,
    vmi: VirtualMachineInstance,
    client: LauncherClient | undefined,
    failed: boolean,
  ): Promise<void> {
    await this.leave(this.targets, key, (uid) => this.proxies().stopTarget(uid));
    if (!failed) {
      if (client !== undefined) await this.finalize(vmi, client);
      return;
    }
    await client?.vmiCommand('signalTargetPodCleanup', vmi).catch(() => undefined);
    const podUid = this.o.launchers.paths(vmi)?.podUid;
    if (podUid !== undefined) await this.o.hotplug?.release(vmi, podUid);
    this.o.launchers.forget(vmi.metadata.uid ?? '');
  }

  /**
   * The target launcher Pod gets its network and the VMI's hotplugged volumes (from the target's attachment Pod),
   * its launcher takes the domain's definition, then the proxy listens for the source.
   */
  private async prepare(
    key: string,
    vmi: VirtualMachineInstance,
    client: LauncherClient,
  ): Promise<Record<string, number>> {
    const podUid = this.o.launchers.paths(vmi)?.podUid;
    if (podUid === undefined) throw new KvError('KV_ERR_LAUNCHER', 'the target launcher Pod is not known');
    const uid = vmi.metadata.uid ?? '';
    const proxies = this.proxies();
    const spec = { podUid, blockMigration: vmi.status?.migrationMethod === 'BlockMigration' };
    // Prepared once per migration; later passes only read the proxy's ports until the source starts.
    if (this.targets.get(key) === uid) return proxies.startTarget(uid, spec);
    await this.o.network?.prepare(vmi, podUid);
    const attachPodUid = vmi.status?.migrationState?.targetAttachmentPodUID ?? '';
    if (attachPodUid !== '') {
      if (this.o.hotplug === undefined)
        throw new KvError('KV_ERR_CONFIG', 'this handler mounts no hotplugged volumes');
      await this.o.hotplug.mountFromPod(vmi, podUid, attachPodUid);
    }
    checked(
      await client.vmiCommand('syncMigrationTarget', vmi, syncOptions(vmi, this.o.config())),
      'SyncMigrationTarget',
    );
    const ports = await proxies.startTarget(uid, spec);
    this.targets.set(key, uid);
    this.o.recorder.event(
      vmi,
      'Normal',
      'PreparingTarget',
      `Migration Target is listening at ${this.o.migrationAddress}, on ports: ${Object.keys(ports).join(',')}`,
    );
    return ports;
  }

  private async readDomain(
    client: LauncherClient,
    before: DomainJson | undefined,
  ): Promise<DomainJson | undefined> {
    const r = await client
      .getDomain()
      .catch((err: unknown) => ({ success: false, message: errorMessage(err) }));
    return r.success && 'payload' in r ? (r.payload as DomainJson | undefined) : before;
  }

  private async write(
    vmi: VirtualMachineInstance,
    next: VirtualMachineInstance,
    scope: PatchScope,
  ): Promise<void> {
    const patch = scopedMergePatch(vmi, next, scope);
    if (patch !== undefined) await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, { obj: vmi, patch });
  }
}
