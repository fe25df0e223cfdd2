/** VMI fixtures for the VMI update tables. */
import type { VirtualMachineInstance } from '../../v1/objects.ts';
import { validSpec } from './fixtures.ts';

/** A running VMI with the permanent volume root and the hotplugged PVC hp. */
export function running(): VirtualMachineInstance {
  const spec = validSpec();
  spec.volumes?.push({ name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } });
  spec.domain.devices.disks?.push({ name: 'hp', disk: { bus: 'scsi' }, serial: 'hp-serial' });
  return {
    metadata: { name: 'vm', namespace: 'ns', labels: { app: 'web', 'kubevirt.io/nodeName': 'node-1' } },
    spec,
    status: {
      phase: 'Running',
      nodeName: 'node-1',
      volumeStatus: [
        { name: 'root', target: 'vda' },
        { name: 'hp', target: 'sda', hotplugVolume: { attachPodName: 'hp-pod' } },
      ],
    },
  };
}

export type Change = (vmi: VirtualMachineInstance) => void;
export const changed = (change: Change): VirtualMachineInstance => {
  const vmi = running();
  change(vmi);
  return vmi;
};
