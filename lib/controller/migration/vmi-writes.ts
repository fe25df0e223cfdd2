/**
 * The VMI a migration pass wants (kubevirt migration.go handleTargetPodHandoff, markMigrationAbortInVmiStatus
 * and handleMarkMigrationFailedOnVMI, tag v1.6.2), as copies of the cached VMI: the hand-off names the
 * migration, both nodes and Pods in status.migrationState (the target's attachment Pod's uid when the VMI has
 * hotplugged volumes: the target's handler mounts them from it), with the cluster's migrationConfiguration (no
 * migration policy is matched here), and labels the VMI kubevirt.io/migrationTargetNodeName so the target's
 * handler takes it; the abort request; the failure of a migration whose target went before the source started.
 */
import { LABELS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import type { MigrationConfiguration } from './config.ts';

type MigrationState = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;

export interface HandOff {
  vmi: VirtualMachineInstance;
  migration: VirtualMachineInstanceMigration;
  targetPod: Pod;
  /** The source launcher Pod's name (the migration's status.migrationState.sourcePod, else the current Pod). */
  sourcePod: string;
  config: MigrationConfiguration;
  /** The uid of the target Pod's attachment Pod, for a VMI with hotplugged volumes. */
  attachmentPodUid?: string;
}

export function handedOffVmi({
  vmi,
  migration,
  targetPod,
  sourcePod,
  config,
  attachmentPodUid,
}: HandOff): VirtualMachineInstance {
  const out = structuredClone(vmi);
  const node = targetPod.spec.nodeName ?? '';
  const state: MigrationState = {
    migrationUid: migration.metadata.uid ?? '',
    targetNode: node,
    sourceNode: vmi.status?.nodeName ?? '',
    targetPod: targetPod.metadata.name ?? '',
    migrationConfiguration: structuredClone(config),
  };
  if (sourcePod !== '') state.sourcePod = sourcePod;
  if (attachmentPodUid !== undefined) state.targetAttachmentPodUID = attachmentPodUid;
  (out.status ??= {}).migrationState = state;
  out.metadata.labels = { ...out.metadata.labels, [LABELS.MIGRATION_TARGET_NODE_NAME]: node };
  return out;
}

/** migrationState.abortRequested = true; the source handler cancels the running migration. */
export function abortedVmi(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const out = structuredClone(vmi);
  const state = out.status?.migrationState;
  if (state !== undefined) state.abortRequested = true;
  return out;
}

/** The migration never started and its target is gone: the VMI's migrationState ends failed at nowMs. */
export function failedOnVmi(vmi: VirtualMachineInstance, nowMs: number): VirtualMachineInstance {
  const out = structuredClone(vmi);
  const state = out.status?.migrationState;
  if (state === undefined) return out;
  const now = rfc3339(nowMs);
  state.startTimestamp = now;
  state.endTimestamp = now;
  state.failed = true;
  state.completed = true;
  return out;
}
