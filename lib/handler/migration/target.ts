/**
 * The migration target handler's pass over one VMI (kubevirt pkg/virt-handler/migration-target.go sync,
 * processVMI, finalCleanup, updateStatus, ackMigrationCompletion). Two pure steps, as KubeVirt's:
 * targetAction says what to do with the target launcher and proxy; targetVmi is the VMI to write after it
 * (labels and status; the caller patches it within TARGET_PATCH_SCOPE, as the VMI controller does its own).
 */
import type { PatchScope } from '../../kernel/controller/merge-patch.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import { ANNOTATIONS, LABELS, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { isMigrating } from '../../kubevirt/vmi-state.ts';
import type { DomainJson } from '../../rpc/index.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import { migrationDone } from './role.ts';

export type TargetAction =
  /** The target launcher does not answer yet: look again in a second. */
  | { readonly kind: 'wait' }
  /** The target launcher stopped answering: the sync fails. */
  | { readonly kind: 'unresponsive' }
  /** SyncMigrationTarget, then start the target proxy's listeners. */
  | { readonly kind: 'prepare' }
  /** The migration ended, neither completed nor failed yet: FinalizeVirtualMachineMigration. */
  | { readonly kind: 'finalize' }
  /**
   * It is over: stop the target proxy; failed: SignalTargetPodCleanup (its error ignored) and forget the
   * domain; completed: FinalizeVirtualMachineMigration again. Then the VMI loses the target label.
   */
  | { readonly kind: 'cleanup'; readonly failed: boolean }
  /** A failed post-copy left the guest on this node and the VMI still Running: look again in a second. */
  | { readonly kind: 'holdPostCopy' }
  | { readonly kind: 'none' };

export interface TargetInput {
  readonly vmi: VirtualMachineInstance;
  /** This handler's node. */
  readonly node: string;
  /** The domain the target launcher reports; undefined before it arrived. */
  readonly domain: DomainJson | undefined;
  readonly launcher: LauncherReach;
  readonly nowMs: number;
}

export interface TargetStatusInput extends TargetInput {
  /** The address the target proxy listens on (the handler's migration address). */
  readonly migrationAddress: string;
  /** The target proxy's TCP ports by the launcher's port ('49152', '49153', '0' for libvirt); none: not up. */
  readonly proxyPorts: Readonly<Record<string, number>> | undefined;
  /** The action ran and succeeded (finalize sets completed only then). */
  readonly actionDone: boolean;
  readonly action: TargetAction;
}

/** What the target handler writes: the labels and annotations, and these status fields. */
export const TARGET_PATCH_SCOPE: PatchScope = {
  metadata: ['labels', 'annotations'],
  top: {
    status: [
      'phase',
      'nodeName',
      'migrationState',
      'conditions',
      'evacuationNodeName',
      'migrationTransport',
      'launcherContainerImageVersion',
    ],
  },
};

/** The record without key (labels, annotations). */
const without = (m: Readonly<Record<string, string>> | undefined, key: string): Record<string, string> =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k !== key));

type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;

const set = (t: string | null | undefined): t is string => t !== undefined && t !== null && t !== '';

const postCopyFailed = (d: DomainJson | undefined): boolean =>
  d?.Status.Status === 'Paused' && d.Status.Reason === 'PostcopyFailed';

/** Ended, neither completed nor failed recorded yet (migrationNeedsFinalization). */
const needsFinalization = (s: State): boolean =>
  set(s.startTimestamp) && set(s.endTimestamp) && s.completed !== true && s.failed !== true;

export function targetAction({ vmi, domain, launcher, nowMs }: TargetInput): TargetAction {
  const state = vmi.status?.migrationState;
  if (state === undefined) return { kind: 'none' };
  if (migrationDone(state)) {
    if (postCopyFailed(domain) && vmi.status?.phase === 'Running') return { kind: 'holdPostCopy' };
    return { kind: 'cleanup', failed: state.failed === true };
  }
  if (needsFinalization(state)) return { kind: 'finalize' };
  if (!launcher.initialized) return { kind: 'wait' };
  if (launcher.unresponsive) return { kind: 'unresponsive' };
  // Once it started there is nothing left to prepare; the proxy is up and the launcher synced.
  if (isMigrating(vmi, nowMs)) return { kind: 'none' };
  return { kind: 'prepare' };
}

/** The domain runs here (Running, or paused by the user): the guest is live on this node. */
const activeHere = (d: DomainJson | undefined): boolean =>
  d?.Status.Status === 'Running' || (d?.Status.Status === 'Paused' && d.Status.Reason === 'User');

/** The migration ended as the domain says: this node owns the VMI now (ackMigrationCompletion). */
function ackCompletion(next: VirtualMachineInstance, state: State, end: string, node: string): void {
  const status = next.status ?? {};
  state.endTimestamp = end;
  next.metadata.labels = {
    ...without(next.metadata.labels, LABELS.OUTDATED_LAUNCHER_IMAGE),
    [LABELS.NODE_NAME]: node,
  };
  status.nodeName = node;
  delete status.launcherContainerImageVersion;
  delete status.evacuationNodeName;
  status.migrationTransport = 'Unix';
}

/** The domain arrived here, and runs: MigrationRequired is met. */
function detect(next: VirtualMachineInstance, state: State, i: TargetStatusInput): void {
  if (i.domain !== undefined && state.targetNodeDomainDetected !== true)
    state.targetNodeDomainDetected = true;
  if (!activeHere(i.domain) || set(state.targetNodeDomainReadyTimestamp)) return;
  state.targetNodeDomainReadyTimestamp = rfc3339(i.nowMs);
  const conditions = next.status?.conditions?.filter((c) => c.type !== 'MigrationRequired');
  if (conditions !== undefined && next.status !== undefined) next.status.conditions = conditions;
}

/** The target proxy's address and ports, once it listens and before the migration started. */
function publish(next: VirtualMachineInstance, state: State, i: TargetStatusInput): void {
  if (isMigrating(next, i.nowMs)) return;
  if (i.proxyPorts === undefined || Object.keys(i.proxyPorts).length === 0) return;
  if (state.targetNodeAddress === i.migrationAddress) return;
  state.targetNodeAddress = i.migrationAddress;
  state.targetDirectMigrationNodePorts = { ...i.proxyPorts };
}

/** What the target saw of the domain, the end of the migration, and its proxy's address. */
function report(next: VirtualMachineInstance, state: State, i: TargetStatusInput): void {
  if (state.failed === true) return;
  detect(next, state, i);
  const end = i.domain?.Spec.Metadata?.KubeVirt.Migration?.EndTimestamp;
  if (set(end)) ackCompletion(next, state, end, i.node);
  publish(next, state, i);
}

/** After the cleanup the VMI loses the target's label, which ends the target's part. */
function cleanedUp(next: VirtualMachineInstance, i: TargetStatusInput): VirtualMachineInstance {
  // A failed post-copy never makes the VMI succeed.
  if (postCopyFailed(i.domain) && next.status?.phase === 'Succeeded') next.status.phase = 'Failed';
  next.metadata.labels = without(next.metadata.labels, LABELS.MIGRATION_TARGET_NODE_NAME);
  next.metadata.annotations = without(next.metadata.annotations, ANNOTATIONS.CREATE_MIGRATION_TARGET);
  return next;
}

/** The VMI after the pass; equal to the input when there is nothing to write. */
export function targetVmi(i: TargetStatusInput): VirtualMachineInstance {
  const next = structuredClone(i.vmi);
  const state = next.status?.migrationState;
  if (state === undefined || next.status === undefined) return next;
  if (i.action.kind === 'holdPostCopy') return next;
  if (i.action.kind === 'cleanup') return i.actionDone ? cleanedUp(next, i) : next;
  if (i.action.kind === 'finalize' && i.actionDone) {
    state.completed = true;
    delete next.status.migratedVolumes;
    const conditions = next.status.conditions?.filter((c) => c.type !== 'VolumesChange');
    if (conditions !== undefined) next.status.conditions = conditions;
  }
  report(next, state, i);
  return next;
}
