/**
 * The disk of a hotplugged volume (KubeVirt vms-admitter.go validateHotplugDiskConfiguration, with the
 * Deckhouse fork's CD-ROM case): a disk on SCSI or virtio, a LUN or (fork) a CD-ROM on SCSI, and IOThreads
 * only on virtio. The fork reuses the LUN message for CD-ROMs; kept. Used for VM volume requests and for
 * volumes added to a running VMI.
 */
import type { Disk } from '../v1/disk.ts';
import { invalid, type Causes } from './causes.ts';
import { diskBusOf } from './vmi-disks.ts';

export function hotplugDiskCauses(
  disk: Disk | undefined,
  name: string,
  prefix: string,
  field: string,
): Causes {
  if (disk === undefined)
    return [invalid(field, `${prefix} for [${name}] requires the disk field to be set.`)];
  const bus = diskBusOf(disk);
  if (disk.disk !== undefined) {
    if (bus !== 'scsi' && bus !== 'virtio') {
      return [
        invalid(
          field,
          `${prefix} for disk [${name}] requires bus to be 'scsi' or 'virtio'. [${bus}] is not permitted.`,
        ),
      ];
    }
  } else if (disk.lun !== undefined || disk.cdrom !== undefined) {
    if (bus !== 'scsi') {
      return [
        invalid(field, `${prefix} for LUN [${name}] requires bus to be 'scsi'. [${bus}] is not permitted.`),
      ];
    }
  } else {
    return [
      invalid(field, `${prefix} for [${name}] requires diskDevice of type 'disk' or 'lun' to be used.`),
    ];
  }
  if (disk.dedicatedIOThread === true && bus !== 'virtio') {
    return [invalid(field, `${prefix} for [${name}] requires virtio bus for IOThreads.`)];
  }
  return [];
}
