/**
 * Which pod a forced restart deletes (kubevirt rest/lifecycle.go findPod, tag v1.6.2): among the VMI's running
 * launcher pods (the selectors below), the only one; of several, the migration's target pod once the migration
 * completed (none if it is not among them), else the first listed. Pure.
 */
import { APP_LABEL, LABEL_VALUES, LABELS, type VirtualMachineInstance } from '../../../kubevirt/index.ts';

export function launcherPodSelectors(vmiUid: string): { labelSelector: string; fieldSelector: string } {
  return {
    labelSelector: `${APP_LABEL}=${LABEL_VALUES.LAUNCHER},${LABELS.CREATED_BY}=${vmiUid}`,
    fieldSelector: 'status.phase==Running',
  };
}

/** The name of the pod to delete among the names listed with launcherPodSelectors, in list order. */
export function pickLauncherPod(
  names: readonly string[],
  vmi: Pick<VirtualMachineInstance, 'status'>,
): string | undefined {
  if (names.length <= 1) return names[0];
  const migration = vmi.status?.migrationState;
  if (migration?.completed !== true) return names[0];
  return names.find((n) => n === migration.targetPod);
}
