/**
 * One pass of the evacuation controller for one node, as a pure function (kubevirt drain/evacuation
 * evacuation.go sync, vmisToMigrate and filterRunningNonMigratingVMIs, tag v1.6.2; the Deckhouse fork's
 * v1.6.2-virtualization is the same): which VMIs on the node get an evacuation migration now, and which ones
 * would but cannot live-migrate. A node tainted with the drain taint evacuates every VMI on it; otherwise the
 * VMIs marked by the eviction webhook (status.evacuationNodeName) that are still on that node and not migrating.
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { hasConditionStatus } from '../../kubevirt/conditions.ts';
import type { EvictionStrategy } from '../../kubevirt/v1/vmi-spec.ts';
import { isFinal, isMigrating } from '../../kubevirt/vmi-state.ts';
import { isMigrationRunning } from '../migration/cluster-view.ts';

export interface Taint {
  key: string;
  effect: string;
  value?: string;
}

/** A VMI whose status.nodeName is the node, with the count of its Pods that are not Succeeded or Failed. */
export interface VmiOnNode {
  vmi: VirtualMachineInstance;
  activePods: number;
}

export interface EvacuationInput {
  node: string;
  taints: readonly Taint[];
  /** The migrations configuration's nodeDrainTaintKey (default kubevirt.io/drain). */
  drainTaintKey: string;
  vmis: readonly VmiOnNode[];
  /** The cluster's migrations that are not Succeeded or Failed, of every namespace. */
  unfinished: readonly VirtualMachineInstanceMigration[];
  /** The KubeVirt CR's evictionStrategy, for the VMIs that set none. */
  clusterEvictionStrategy: EvictionStrategy | undefined;
  parallelMigrationsPerCluster: number;
  parallelOutboundMigrationsPerNode: number;
  nowMs: number;
}

export interface EvacuationDecision {
  /** Create one evacuation migration for each, in this order. */
  migrate: VirtualMachineInstance[];
  /** Not live-migratable, yet a free slot would have gone to them: one event each. */
  notMigratable: VirtualMachineInstance[];
  requeueAfterMs?: number;
}

/** Every slot taken: look again after this (KubeVirt: 5 s). */
export const NO_SLOT_RETRY_MS = 5_000;
/** Only unmigratable VMIs got a slot: repeat their events after this (KubeVirt: 1 min). */
export const NOT_MIGRATABLE_RETRY_MS = 60_000;

const NOTHING: EvacuationDecision = { migrate: [], notMigratable: [] };

const keyOf = (o: { metadata: { namespace?: string; name?: string } }): string =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

const isMigratable = (vmi: VirtualMachineInstance): boolean =>
  hasConditionStatus(vmi.status?.conditions, 'LiveMigratable', 'True');

/** The node carries the drain taint with effect NoSchedule (its value does not matter). */
const hasDrainTaint = (input: EvacuationInput): boolean =>
  input.taints.some((t) => t.key === input.drainTaintKey && t.effect === 'NoSchedule');

/**
 * Marked for eviction from the node it still runs on, and no migration of it in flight. A VMI whose
 * evacuationNodeName is another node has moved already (KubeVirt's hasMigratedOnEviction).
 */
const markedForEviction = (vmi: VirtualMachineInstance, nowMs: number): boolean => {
  const target = vmi.status?.evacuationNodeName ?? '';
  return target !== '' && target === (vmi.status?.nodeName ?? '') && !isMigrating(vmi, nowMs);
};

/** Its eviction strategy (its own, else the cluster's) asks for a live migration (VMIMigratableOnEviction). */
function migratesOnEviction(vmi: VirtualMachineInstance, cluster: EvictionStrategy | undefined): boolean {
  const strategy = vmi.spec.evictionStrategy ?? cluster;
  if (strategy === 'LiveMigrate') return true;
  if (strategy === 'LiveMigrateIfPossible') return isMigratable(vmi);
  return false;
}

interface Candidates {
  migratable: VirtualMachineInstance[];
  notMigratable: VirtualMachineInstance[];
}

function candidates(input: EvacuationInput, chosen: readonly VmiOnNode[]): Candidates {
  const migrating = new Set(
    input.unfinished.map((m) => `${m.metadata.namespace ?? ''}/${m.spec.vmiName ?? ''}`),
  );
  const out: Candidates = { migratable: [], notMigratable: [] };
  for (const { vmi, activePods } of chosen) {
    if (isFinal(vmi) || vmi.metadata.deletionTimestamp !== undefined) continue;
    if (!migratesOnEviction(vmi, input.clusterEvictionStrategy)) continue;
    if (!isMigratable(vmi)) out.notMigratable.push(vmi);
    // A migration of it not yet final, or the Pods of an earlier one still going away.
    else if (!migrating.has(keyOf(vmi)) && activePods <= 1) out.migratable.push(vmi);
  }
  return out;
}

/**
 * Free slots: the cluster's and the node's parallel limits less the migrations past Pending (a Pending one
 * holds no slot here; the migration controller holds it back). A migration leaves this node when its VMI is
 * one of the node's (by namespace and name; KubeVirt compares the name only).
 */
function freeSlots(input: EvacuationInput): number {
  const running = input.unfinished.filter(isMigrationRunning);
  const onNode = new Set(input.vmis.map(({ vmi }) => keyOf(vmi)));
  const outbound = running.filter((m) =>
    onNode.has(`${m.metadata.namespace ?? ''}/${m.spec.vmiName ?? ''}`),
  ).length;
  return Math.min(
    input.parallelMigrationsPerCluster - running.length,
    input.parallelOutboundMigrationsPerNode - outbound,
  );
}

export function decideEvacuation(input: EvacuationInput): EvacuationDecision {
  const chosen = hasDrainTaint(input)
    ? input.vmis
    : input.vmis.filter(({ vmi }) => markedForEviction(vmi, input.nowMs));
  if (chosen.length === 0) return NOTHING;
  const { migratable, notMigratable } = candidates(input, chosen);
  if (migratable.length === 0 && notMigratable.length === 0) return NOTHING;
  const free = freeSlots(input);
  if (free <= 0) return { ...NOTHING, requeueAfterMs: NO_SLOT_RETRY_MS };
  const migrate = migratable.slice(0, free);
  const warned = notMigratable.slice(0, free - migrate.length);
  const again = migrate.length === 0 && warned.length > 0;
  return { migrate, notMigratable: warned, ...(again && { requeueAfterMs: NOT_MIGRATABLE_RETRY_MS }) };
}
