/**
 * Labels and annotations of a VMI, or of a VM's template (KubeVirt vmi-create-admitter.go
 * ValidateVirtualMachineInstanceMetadata, vmi-update-admitter.go filterKubevirtLabels): only KubeVirt's own
 * service accounts may set the reserved kubevirt.io/ labels; the ignition and sidecar annotations need their
 * feature gates.
 */
import { LABELS } from '../labels.ts';
import { child, invalid, notSupported, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';

const IGNITION_ANNOTATION = 'kubevirt.io/ignitiondata';
const SIDECAR_ANNOTATION = 'hooks.kubevirt.io/hookSidecars';

/** The labels KubeVirt reserves on VMIs (restrictedVmiLabels). */
const RESTRICTED_VMI_LABELS: readonly string[] = [
  LABELS.CREATED_BY,
  LABELS.MIGRATION_JOB_UID,
  LABELS.NODE_NAME,
  LABELS.MIGRATION_TARGET_NODE_NAME,
  LABELS.NODE_SCHEDULABLE,
  LABELS.INSTALL_STRATEGY,
];

export interface MetadataLike {
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

/** The reserved labels among `labels`, sorted by key. */
export function reservedLabels(labels: MetadataLike['labels']): [string, string][] {
  return Object.entries(labels ?? {})
    .filter(([key]) => RESTRICTED_VMI_LABELS.includes(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function validateVmiMetadata(
  meta: MetadataLike | null | undefined,
  ctx: ValidationContext & { readonly isKubevirtServiceAccount: boolean },
  path: string,
): Causes {
  const causes: Causes = [];
  if (!ctx.isKubevirtServiceAccount && reservedLabels(meta?.labels).length > 0) {
    causes.push(
      notSupported(
        child(path, 'labels'),
        'creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited',
      ),
    );
  }
  const annotations = meta?.annotations ?? {};
  const f = child(path, 'annotations');
  if ((annotations[IGNITION_ANNOTATION] ?? '') !== '' && !gateEnabled(ctx, GATES.IGNITION)) {
    causes.push(
      invalid(
        f,
        `${GATES.IGNITION} feature gate is not enabled in kubevirt-config, invalid entry ${f}.${IGNITION_ANNOTATION}`,
      ),
    );
  }
  if ((annotations[SIDECAR_ANNOTATION] ?? '') !== '' && !gateEnabled(ctx, GATES.SIDECAR)) {
    causes.push(
      invalid(
        f,
        `sidecar feature gate is not enabled in kubevirt-config, invalid entry ${f}.${SIDECAR_ANNOTATION}`,
      ),
    );
  }
  return causes;
}
