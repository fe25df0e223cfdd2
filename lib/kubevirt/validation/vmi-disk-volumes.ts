/**
 * Disks against volumes, and boot orders (KubeVirt vmi-create-admitter.go validateBootOrder,
 * validateInterfaceBootOrder and, for VMIs only, validateVirtualMachineInstanceSpecVolumeDisks): every disk
 * names a volume (an empty CD-ROM needs DeclarativeHotplugVolumes), a LUN sits on a PVC or DataVolume, a
 * downwardMetrics volume is a virtio disk, no two devices share a boot order, and on a VMI every volume but a
 * memory dump has a disk or filesystem. The "not found" messages are KubeVirt's, `Name` and `domain.volumes`
 * included.
 */
import type { Disk } from '../v1/disk.ts';
import type { Volume } from '../v1/volume.ts';
import { child, invalid, item, required, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';
import type { SpecRule } from './rule.ts';

function volumeOfDisk(disk: Disk, at: string, volume: Volume | undefined, ctx: ValidationContext): Causes {
  if (volume !== undefined) return [];
  if (disk.cdrom === undefined) {
    return [invalid(child(at, 'name'), `${child(at, 'Name')} '${disk.name}' not found.`)];
  }
  if (gateEnabled(ctx, GATES.DECLARATIVE_HOTPLUG_VOLUMES)) return [];
  return [
    invalid(
      child(at, 'name'),
      `${GATES.DECLARATIVE_HOTPLUG_VOLUMES} feature gate not enabled, cannot define an empty CD-ROM disk`,
    ),
  ];
}

function sourceOfDisk(disk: Disk, at: string, volume: Volume | undefined): Causes {
  if (volume === undefined) return [];
  const causes: Causes = [];
  if (
    disk.lun !== undefined &&
    volume.persistentVolumeClaim === undefined &&
    volume.dataVolume === undefined
  ) {
    const f = child(at, 'lun');
    causes.push(invalid(f, `${f} can only be mapped to a DataVolume or PersistentVolumeClaim volume.`));
  }
  if (volume.downwardMetrics === undefined) return causes;
  if (disk.disk === undefined) {
    const f = child(at, 'disk');
    causes.push(required(f, `DownwardMetrics volume must be mapped to a disk, but disk is not set on ${f}.`));
  } else if (disk.disk.bus !== undefined && disk.disk.bus !== 'virtio') {
    const f = child(at, 'disk', 'bus');
    causes.push(
      invalid(f, `DownwardMetrics volume must be mapped to virtio bus, but ${f} is set to ${disk.disk.bus}`),
    );
  }
  return causes;
}

function duplicateOrder(order: number | undefined, f: string, seen: Set<number>): Causes {
  if (order === undefined) return [];
  const again = seen.has(order);
  seen.add(order);
  return again ? [invalid(f, `Boot order for ${f} already set for a different device.`)] : [];
}

function interfaceOrders(spec: Parameters<SpecRule>[0], path: string, seen: Set<number>): Causes {
  return (spec.domain.devices.interfaces ?? []).flatMap((iface, i) => {
    const order = iface.bootOrder;
    if (order === undefined) return [];
    if (order < 1) {
      // KubeVirt names the interface by the spec path and its index alone (field.Index(idx)).
      return [invalid(`${path}[${i}].bootOrder`, `${path}[${i}] must have a boot order > 0, if supplied`)];
    }
    return duplicateOrder(
      order,
      child(item(path, ['domain', 'devices', 'interfaces'], i), 'bootOrder'),
      seen,
    );
  });
}

export const bootOrder: SpecRule = (spec, ctx, path) => {
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  const seen = new Set<number>();
  const diskCauses = (spec.domain.devices.disks ?? []).flatMap((disk, i) => {
    const at = item(path, ['domain', 'devices', 'disks'], i);
    const volume = volumes.get(disk.name);
    return [
      ...volumeOfDisk(disk, at, volume, ctx),
      ...sourceOfDisk(disk, at, volume),
      ...duplicateOrder(disk.bootOrder, child(at, 'bootOrder'), seen),
    ];
  });
  return [...diskCauses, ...interfaceOrders(spec, path, seen)];
};

/** VMIs only: each volume (but a memory dump) has a disk or a filesystem of its name. */
export const volumesHaveDisks: SpecRule = (spec, _ctx, path) => {
  const devices = spec.domain.devices;
  const named = new Set([...(devices.disks ?? []), ...(devices.filesystems ?? [])].map((d) => d.name));
  return (spec.volumes ?? []).flatMap((volume, i) => {
    if (volume.memoryDump !== undefined || named.has(volume.name)) return [];
    const f = child(item(path, ['domain', 'volumes'], i), 'name');
    return [invalid(f, `${f} '${volume.name}' not found.`)];
  });
};
