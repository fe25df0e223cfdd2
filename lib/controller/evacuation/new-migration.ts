/**
 * The migration the evacuation controller creates for a VMI (kubevirt drain/evacuation evacuation.go
 * GenerateNewMigration, tag v1.6.2): a generated name, the kubevirt.io/evacuationMigration annotation naming the
 * node it evacuates (the controller's expectations key), and the kubevirt.io/vmi-name label that KubeVirt's
 * migration-create mutator would add.
 */
import { ANNOTATIONS, LABELS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';

const EVACUATION_GENERATE_NAME = 'kubevirt-evacuation-';

export function newEvacuationMigration(
  vmi: VirtualMachineInstance,
  node: string,
): VirtualMachineInstanceMigration {
  const name = vmi.metadata.name ?? '';
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: {
      generateName: EVACUATION_GENERATE_NAME,
      namespace: vmi.metadata.namespace ?? '',
      labels: { [LABELS.MIGRATION_SELECTOR]: name },
      annotations: { [ANNOTATIONS.EVACUATION_MIGRATION]: node },
    },
    spec: { vmiName: name },
  };
}
