/**
 * The write a VMI sync makes: before the node owns the VMI, status, labels and finalizers; once it is
 * Scheduled or Running (the node writes it too), only the fields KubeVirt's controller still patches then:
 * conditions, activePods, phase, launcherContainerImageVersion, volumeStatus, interfaces and labels.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { scopedMergePatch, type PatchScope } from '../../kernel/controller/merge-patch.ts';

const CONTROLLER_OWNED: PatchScope = {
  metadata: ['labels', 'finalizers', 'annotations'],
  top: { status: 'all' },
};

const NODE_OWNED: PatchScope = {
  metadata: ['labels'],
  top: {
    status: [
      'conditions',
      'activePods',
      'phase',
      'launcherContainerImageVersion',
      'volumeStatus',
      'interfaces',
    ],
  },
};

export function vmiPatch(
  old: VirtualMachineInstance,
  desired: VirtualMachineInstance,
  nodeOwned: boolean,
): Record<string, unknown> | undefined {
  return scopedMergePatch(old, desired, nodeOwned ? NODE_OWNED : CONTROLLER_OWNED);
}
