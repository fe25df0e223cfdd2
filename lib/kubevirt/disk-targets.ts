/**
 * Guest device names of disks (vda, vdb, sda, ...), as KubeVirt's converter assigns them: per bus prefix (vd
 * for virtio, sd for sata/scsi/usb), in disk order, keeping the targets already reported in
 * status.volumeStatus so a disk never changes name while the VMI lives.
 */
import type { Disk, DiskBus } from './v1/disk.ts';
import type { VolumeStatus } from './v1/vmi-status.ts';

/** Device name prefix of a bus; '' for a bus KubeVirt does not know. */
export function busPrefix(bus: DiskBus | undefined): string {
  switch (bus) {
    case 'virtio':
      return 'vd';
    case 'sata':
    case 'scsi':
    case 'usb':
      return 'sd';
    case undefined:
      return '';
  }
}

/** Name of the index-th device with this prefix: 0 → a, 25 → z, 26 → aa, 701 → zz, 702 → aaa. */
export function formatDeviceName(prefix: string, index: number): string {
  let name = '';
  for (let i = index; i >= 0; i = Math.floor(i / 26) - 1) {
    name = String.fromCharCode(97 + (i % 26)) + name;
  }
  return prefix + name;
}

/** The bus a disk is attached with (lun, then disk, then cdrom). */
export function busOf(disk: Disk): DiskBus | undefined {
  return disk.lun?.bus ?? disk.disk?.bus ?? disk.cdrom?.bus;
}

const MAX_DEVICES = 26 * 26 * 26;

interface PrefixNames {
  readonly byDisk: Map<string, string>;
  readonly used: Set<string>;
}

function namesFor(prefixes: Map<string, PrefixNames>, prefix: string): PrefixNames {
  let names = prefixes.get(prefix);
  if (names === undefined) {
    names = { byDisk: new Map(), used: new Set() };
    prefixes.set(prefix, names);
  }
  return names;
}

/** The disk's known target, or the first free name with this prefix (recorded as used). */
function targetFor(names: PrefixNames, prefix: string, diskName: string): string | undefined {
  const existing = names.byDisk.get(diskName);
  if (existing !== undefined) return existing;
  for (let i = 0; i < MAX_DEVICES; i++) {
    const candidate = formatDeviceName(prefix, i);
    if (names.used.has(candidate)) continue;
    names.byDisk.set(diskName, candidate);
    names.used.add(candidate);
    return candidate;
  }
  return undefined;
}

/**
 * Disk name → target device. Only `disk` devices keep a target from volumeStatus (as in KubeVirt); LUNs and
 * CD-ROMs are renumbered around them.
 */
export function assignDiskTargets(
  disks: readonly Disk[],
  volumeStatus: readonly VolumeStatus[] = [],
): Map<string, string> {
  const reported = new Map(volumeStatus.filter((v) => v.target !== '').map((v) => [v.name, v.target]));
  const prefixes = new Map<string, PrefixNames>();
  for (const disk of disks) {
    const target = reported.get(disk.name);
    if (disk.disk === undefined || target === undefined) continue;
    const names = namesFor(prefixes, busPrefix(disk.disk.bus));
    names.byDisk.set(disk.name, target);
    names.used.add(target);
  }
  const out = new Map<string, string>();
  for (const disk of disks) {
    const prefix = busPrefix(busOf(disk));
    const target = targetFor(namesFor(prefixes, prefix), prefix, disk.name);
    if (target !== undefined) out.set(disk.name, target);
  }
  return out;
}
