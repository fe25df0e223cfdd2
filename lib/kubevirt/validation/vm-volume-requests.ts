/**
 * status.volumeRequests of a VM (KubeVirt vms-admitter.go validateVolumeRequests, with the Deckhouse fork's
 * containerDisk source), checked as every kind of pending request is (vm-pending-requests.ts): an added volume
 * has a hotpluggable disk and does not clash with a volume of its name on the template or the running VMI. The
 * causes sit at KubeVirt's `Status.volumeRequests`.
 */
import type { VirtualMachineVolumeRequest } from '../v1/vm.ts';
import { applyVolumeRequest } from '../volume-requests.ts';
import { hotplugDiskCauses } from './hotplug-disk.ts';
import type { PendingRequestKind } from './vm-pending-requests.ts';

type AddOptions = NonNullable<VirtualMachineVolumeRequest['addVolumeOptions']>;

/** The volume an add request describes, as KubeVirt compares it (hotpluggable as sent). */
function requestedVolume(add: AddOptions): Record<string, unknown> {
  const src = add.volumeSource;
  if (src.persistentVolumeClaim !== undefined)
    return { name: add.name, persistentVolumeClaim: src.persistentVolumeClaim };
  if (src.dataVolume !== undefined) return { name: add.name, dataVolume: src.dataVolume };
  if (src.containerDisk !== undefined) return { name: add.name, containerDisk: src.containerDisk };
  return { name: add.name };
}

export const VOLUME_REQUESTS: PendingRequestKind<VirtualMachineVolumeRequest, AddOptions> = {
  kind: 'Volume',
  noun: 'volume',
  field: 'Status.volumeRequests',
  add: (req) => req.addVolumeOptions,
  remove: (req) => req.removeVolumeOptions,
  addCauses: (add, prefix, field) => hotplugDiskCauses(add.disk, add.name, prefix, field),
  requested: requestedVolume,
  onSpec: (spec) => spec.volumes,
  apply: applyVolumeRequest,
};
