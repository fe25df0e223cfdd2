/**
 * The evacuation controller's reconcile (kubevirt drain/evacuation evacuation.go execute and sync, tag v1.6.2),
 * keyed by node name, from the informer caches: while the migrations it created for the node are not all seen,
 * it waits; otherwise decideEvacuation (decide.ts) on the node's VMIs, the unfinished migrations and the
 * cluster's migrations configuration, then one VirtualMachineInstanceMigration per chosen VMI, with KubeVirt's
 * events on the VMI.
 */
import { VIRTUAL_MACHINE_INSTANCE_MIGRATIONS } from '../../kubevirt/index.ts';
import type {
  KubeVirt,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { Clock } from '../../kernel/clock.ts';
import { ControllerExpectations } from '../../kernel/controller/expectations.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import { clusterKubeVirt } from '../cluster-config.ts';
import { activePodCount, isMigrationFinal } from '../migration/cluster-view.ts';
import { migrationConfigurationOf } from '../migration/config.ts';
import { podsOfVmi } from '../vmi/indexers.ts';
import { decideEvacuation, type EvacuationInput } from './decide.ts';
import { BY_STATUS_NODE, type Node } from './handlers.ts';
import { newEvacuationMigration } from './new-migration.ts';

type Migration = VirtualMachineInstanceMigration;

export interface EvacuationControllerOptions {
  client: KubeClient;
  nodes: StoreReader<Node>;
  /** Indexed by BY_STATUS_NODE. */
  vmis: StoreReader<VirtualMachineInstance>;
  migrations: StoreReader<Migration>;
  /** Launcher and target Pods, indexed by vmiIndexers. */
  pods: StoreReader<Pod>;
  kubevirts: StoreReader<KubeVirt>;
  clock: Clock;
  recorder: EventRecorder;
}

/** KubeVirt's event reasons (FailedCreateVirtualMachineInstanceMigrationReason and its Successful twin). */
const FAILED_CREATE = 'FailedCreate';
const SUCCESSFUL_CREATE = 'SuccessfulCreate';

export class EvacuationController {
  /** Migrations created per node and not yet seen in the cache (keyed by node name). */
  readonly expectations: ControllerExpectations;

  constructor(private readonly opts: EvacuationControllerOptions) {
    this.expectations = new ControllerExpectations(opts.clock);
  }

  readonly reconcile = async (node: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const obj = this.opts.nodes.get(node);
    if (obj === undefined) {
      this.expectations.deleteExpectations(node);
      return undefined;
    }
    if (!this.expectations.satisfiedExpectations(node)) return undefined;
    const d = decideEvacuation(this.input(obj));
    for (const vmi of d.notMigratable) {
      this.opts.recorder.event(vmi, 'Normal', FAILED_CREATE, 'VirtualMachineInstance is not migrateable');
    }
    if (d.migrate.length > 0) {
      ctx.log.info('creating evacuation migrations', { node, count: d.migrate.length });
      await this.createMigrations(node, d.migrate);
    }
    return d.requeueAfterMs === undefined ? undefined : { requeueAfterMs: d.requeueAfterMs };
  };

  private input(node: Node): EvacuationInput {
    const name = node.metadata.name ?? '';
    const kv = clusterKubeVirt(this.opts.kubevirts.list());
    const config = migrationConfigurationOf(kv);
    return {
      node: name,
      taints: node.spec?.taints ?? [],
      drainTaintKey: config.nodeDrainTaintKey,
      vmis: this.opts.vmis.byIndex(BY_STATUS_NODE, name).map((vmi) => ({
        vmi,
        activePods: activePodCount(podsOfVmi(this.opts.pods, vmi)),
      })),
      unfinished: this.opts.migrations.list().filter((m) => !isMigrationFinal(m)),
      clusterEvictionStrategy: kv?.spec.configuration?.evictionStrategy,
      parallelMigrationsPerCluster: config.parallelMigrationsPerCluster,
      parallelOutboundMigrationsPerNode: config.parallelOutboundMigrationsPerNode,
      nowMs: this.opts.clock.now(),
    };
  }

  /** Creates them all at once; a failed create lowers the expectations, and the first failure is thrown. */
  private async createMigrations(node: string, vmis: readonly VirtualMachineInstance[]): Promise<void> {
    this.expectations.expectCreations(node, vmis.length);
    const results = await Promise.allSettled(vmis.map((vmi) => this.create(node, vmi)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private async create(node: string, vmi: VirtualMachineInstance): Promise<void> {
    const manifest = newEvacuationMigration(vmi, node);
    try {
      const created = await this.opts.client.create(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, manifest, {
        namespace: manifest.metadata.namespace ?? '',
      });
      const name = created.metadata.name ?? '';
      this.opts.recorder.event(vmi, 'Normal', SUCCESSFUL_CREATE, `Created Migration ${name}`);
    } catch (err) {
      this.expectations.creationObserved(node);
      const message = `Error creating a Migration: ${errorMessage(err)}`;
      this.opts.recorder.event(vmi, 'Warning', FAILED_CREATE, message);
      throw err;
    }
  }
}
