/**
 * The migration source handler's pass over one VMI (kubevirt pkg/virt-handler/migration-source.go migrateVMI,
 * handleMigrationAbort, setMigrationProgressStatus, updateStatus, hasTargetDetectedReadyDomain). sourceAction
 * says what to ask of the source launcher and proxy; sourceVmi is the VMI to write after it: the domain's
 * migration record copied into migrationState, and the VMI failed when the migration went nowhere. After a
 * success the target takes the VMI over (nodeName) and the source's domain is an orphan (role.ts). Pure.
 */
import type { PatchScope } from '../../kernel/controller/merge-patch.ts';
import { parseTime, rfc3339 } from '../../kernel/controller/time.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, MigrationMetadataJson } from '../../rpc/index.ts';
import { domainAlive } from '../vmi/decide.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import { migrationDone, migrationInProgress } from './role.ts';
import { migrationOptions, type MigrationConfiguration, type MigrationOptionsJson } from './options.ts';

export type SourceAction =
  | { readonly kind: 'none' }
  /** The launcher does not answer yet, or the target has not published its ports: look again in a second. */
  | { readonly kind: 'wait' }
  | { readonly kind: 'unresponsive' }
  /** CancelVirtualMachineMigration. */
  | { readonly kind: 'cancel' }
  /** Start the source proxy towards the target, then MigrateVirtualMachine with these options. */
  | {
      readonly kind: 'start';
      readonly targetAddress: string;
      readonly targetPorts: Readonly<Record<string, number>>;
      readonly options: MigrationOptionsJson;
    };

export interface SourceInput {
  readonly vmi: VirtualMachineInstance;
  readonly domain: DomainJson | undefined;
  readonly launcher: LauncherReach;
  /** The cluster's migration configuration, for a VMI whose migrationState carries none. */
  readonly cluster?: MigrationConfiguration;
}

/** What the source handler writes. */
export const SOURCE_PATCH_SCOPE: PatchScope = { top: { status: ['phase', 'migrationState'] } };

/** How long the target has to see the domain ready after the migration ended (seconds, as KubeVirt). */
const TARGET_DELAY_MS = 60_000;
const MIN_RECHECK_MS = 5_000;

export function sourceAction({ vmi, domain, launcher, cluster }: SourceInput): SourceAction {
  const state = vmi.status?.migrationState;
  if (state === undefined || !domainAlive(domain) || domain?.Status.Status === 'NoState')
    return { kind: 'none' };
  if (!launcher.initialized) return { kind: 'wait' };
  if (launcher.unresponsive) return { kind: 'unresponsive' };
  if (state.abortRequested === true) return abort(state);
  if (migrationInProgress(vmi, domain)) return { kind: 'none' };
  return start(vmi, state, cluster);
}

/** Cancel, unless the launcher is aborting already or has (handleMigrationAbort). */
const abort = (state: State): SourceAction =>
  state.abortStatus === 'Aborting' || state.abortStatus === 'Succeeded'
    ? { kind: 'none' }
    : { kind: 'cancel' };

/** Start once the target published where its proxy listens. */
function start(
  vmi: VirtualMachineInstance,
  state: State,
  cluster: MigrationConfiguration | undefined,
): SourceAction {
  const ports = state.targetDirectMigrationNodePorts;
  const address = state.targetNodeAddress ?? '';
  if (ports === undefined || address === '') return { kind: 'wait' };
  return {
    kind: 'start',
    targetAddress: address,
    targetPorts: ports,
    options: migrationOptions(vmi, cluster),
  };
}

export interface SourceStatus {
  readonly vmi: VirtualMachineInstance;
  /** Look again after this long: the target may still report the domain ready. */
  readonly recheckAfterMs?: number;
}

type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;

/** The launcher's record of this migration (same uid) into migrationState (setMigrationProgressStatus). */
function copyProgress(state: State, domain: DomainJson | undefined): void {
  const meta = domain?.Spec.Metadata?.KubeVirt.Migration;
  if (meta === undefined || meta.UID !== state.migrationUid) return;
  state.startTimestamp = meta.StartTimestamp ?? null;
  state.failed = meta.Failed === true;
  if (meta.Failed === true) {
    state.endTimestamp = meta.EndTimestamp ?? null;
    state.failureReason = meta.FailureReason ?? '';
  }
  copyAbortAndMode(state, meta);
}

function copyAbortAndMode(state: State, meta: MigrationMetadataJson): void {
  if (meta.AbortStatus !== undefined) state.abortStatus = meta.AbortStatus;
  else delete state.abortStatus;
  if (meta.AbortStatus === 'Succeeded') state.endTimestamp = meta.EndTimestamp ?? null;
  if (meta.Mode !== undefined) state.mode = meta.Mode;
  else delete state.mode;
}

function failHandOff(next: VirtualMachineInstance, state: State, nowMs: number): void {
  if (next.status !== undefined) next.status.phase = 'Failed';
  state.completed = true;
  state.failed = true;
  if (parseTime(state.endTimestamp) === undefined) state.endTimestamp = rfc3339(nowMs);
}

export function sourceVmi(i: {
  vmi: VirtualMachineInstance;
  domain: DomainJson | undefined;
  nowMs: number;
}): SourceStatus {
  const next = structuredClone(i.vmi);
  const state = next.status?.migrationState;
  if (state === undefined) return { vmi: next };
  copyProgress(state, i.domain);
  // A failed or aborted migration is done with: the VMI stays here and nothing is handed off.
  if (migrationDone(state)) return { vmi: next };
  // Nowhere to hand the VMI to: it fails, and the controller tears the Pods down.
  if ((state.targetNode ?? '') === '') {
    failHandOff(next, state, i.nowMs);
    return { vmi: next };
  }
  const end = parseTime(state.endTimestamp);
  const ready =
    state.targetNodeDomainDetected === true && parseTime(state.targetNodeDomainReadyTimestamp) !== undefined;
  if (end === undefined || ready) return { vmi: next };
  const left = end + TARGET_DELAY_MS - i.nowMs;
  if (left < 0) {
    failHandOff(next, state, i.nowMs);
    return { vmi: next };
  }
  return { vmi: next, recheckAfterMs: Math.max(left, MIN_RECHECK_MS) };
}
