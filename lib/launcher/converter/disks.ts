/**
 * Disks: each disk of the VMI joined with its volume, in disk order. A disk without a volume is an error,
 * except a CD-ROM, which becomes an empty drive. Hotplugged volumes appear only once they are mounted into
 * the launcher (volume status MountedToPod or Ready). LUNs with `reservation` reach their storage through the
 * pr-helper socket. Boot orders are unique across disks and interfaces. claimImages lists the images on
 * filesystem claims those disks read, whose formats the launcher finds before it converts.
 */
import {
  assignDiskTargets,
  busOf,
  defaultDiskBus,
  HOTPLUG_MOUNTED_PHASES,
  type Disk as VmiDisk,
  type DiskBus,
  type VirtualMachineInstance,
  type Volume,
  type VolumeStatus,
} from '../../kubevirt/index.ts';
import { configurator, virtioModel, type Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import { cpuTopology, vcpuCount } from './cpu-topology.ts';
import { setCacheAndIo } from './disk-cache.ts';
import { DISK_BUSES, diskDevice, diskKind } from './disk-device.ts';
import type { Disk } from './domain-spec.ts';
import { ConversionError } from './errors.ts';
import { claimImageFile, isHotplugImage, volumeSource, type VolumeDisk } from './volume-source.ts';

/** The disk with the bus it will use: its own, else the architecture's default. */
function withBus(disk: VmiDisk, field: string, ctx: ConverterContext): VmiDisk & { bus: DiskBus } {
  const kind = diskKind(disk);
  const bus = busOf(disk) ?? defaultDiskBus(ctx.arch);
  if (!DISK_BUSES.includes(bus))
    throw new ConversionError(`${field}.${kind}.bus`, `unsupported disk bus ${bus}`);
  return { ...disk, [kind]: { ...disk[kind], bus }, bus };
}

function checkBootOrders(vmi: VirtualMachineInstance): void {
  const devices = vmi.spec.domain.devices;
  const seen = new Set<number>();
  const entries = [
    ...(devices.disks ?? []).map(
      (d, i) => [d.bootOrder, `spec.domain.devices.disks[${i}].bootOrder`] as const,
    ),
    ...(devices.interfaces ?? []).map(
      (n, i) => [n.bootOrder, `spec.domain.devices.interfaces[${i}].bootOrder`] as const,
    ),
  ];
  for (const [order, field] of entries) {
    if (order === undefined) continue;
    if (!Number.isInteger(order) || order < 1) throw new ConversionError(field, 'must be greater than 0');
    if (seen.has(order)) {
      throw new ConversionError(field, `Boot order for ${field} already set for a different device.`);
    }
    seen.add(order);
  }
}

interface DiskPlan {
  readonly vmi: VirtualMachineInstance;
  readonly ctx: ConverterContext;
  readonly statuses: ReadonlyMap<string, VolumeStatus>;
}

function isBlock(name: string, plan: DiskPlan): boolean {
  const fromCtx = plan.ctx.blockVolumes?.has(name);
  return fromCtx ?? plan.statuses.get(name)?.persistentVolumeClaimInfo?.volumeMode === 'Block';
}

/** A hotplugged volume; a hotpluggable containerDisk always is (no launcher Pod mounts its image). */
function isHotplug(volume: Volume, plan: DiskPlan): boolean {
  if (isHotplugImage(volume)) return true;
  const name = volume.name;
  return plan.ctx.hotplugVolumes?.has(name) ?? plan.statuses.get(name)?.hotplugVolume !== undefined;
}

/** Whether a hotplugged volume is mounted into the launcher Pod. */
function isMounted(name: string, plan: DiskPlan): boolean {
  return HOTPLUG_MOUNTED_PHASES.includes(plan.statuses.get(name)?.phase);
}

function diskPlan(vmi: VirtualMachineInstance, ctx: ConverterContext): DiskPlan {
  const statusList = vmi.status?.volumeStatus ?? [];
  return { vmi, ctx, statuses: new Map(statusList.map((s) => [s.name, s])) };
}

function emptyCdrom(disk: Disk): Disk {
  return { ...disk, type: 'block', source: {} };
}

/** Type, source, format, backing store and discard from the volume. */
function withSource(disk: Disk, src: VolumeDisk, discardIgnored: boolean): Disk {
  const discard = disk.device !== 'cdrom' && src.readOnly !== true && (src.discard || !discardIgnored);
  const out: Disk = {
    ...disk,
    type: src.type,
    source: { ...src.source },
    driver: { ...disk.driver, type: src.format, ...(discard && { discard: 'unmap' }) },
  };
  if (src.backingStore !== undefined) out.backingStore = src.backingStore;
  if (src.readOnly === true) out.readonly = true;
  return out;
}

/** The pr-helper reservation of a LUN, and block sizes matched to the volume. */
function setStorageOptions(out: Disk, source: VmiDisk, volume: string, ctx: ConverterContext): void {
  if (out.device === 'lun' && source.lun?.reservation === true) {
    out.source.reservations = {
      managed: 'no',
      source: { type: 'unix', path: ctx.layout.prHelperSocket, mode: 'client' },
    };
  }
  const match = source.blockSize?.matchVolume;
  const sizes = ctx.volumeBlockSizes.get(volume);
  if (out.blockIo === undefined && match !== undefined && match.enabled !== false && sizes !== undefined) {
    out.blockIo = sizes;
  }
}

/** Fills in the volume side of a disk; undefined when the volume is a hotplug that is not mounted yet. */
function backDisk(disk: Disk, source: VmiDisk, field: string, plan: DiskPlan): Disk | undefined {
  const volumes = plan.vmi.spec.volumes ?? [];
  const index = volumes.findIndex((v) => v.name === source.name);
  const volume = volumes[index];
  if (volume === undefined) {
    if (disk.device === 'cdrom') return emptyCdrom(disk);
    throw new ConversionError(`${field}.name`, `no volume named ${source.name} in spec.volumes`);
  }
  const { ctx, vmi } = plan;
  const hotplug = isHotplug(volume, plan);
  if (hotplug && !isMounted(volume.name, plan)) return undefined;
  const src = volumeSource(volume, { vmi, ctx, index, block: isBlock(volume.name, plan), hotplug });
  if (disk.device === 'lun' && !src.persistent) {
    throw new ConversionError(`${field}.lun`, 'a LUN needs a persistentVolumeClaim or dataVolume volume');
  }
  const out = withSource(disk, src, ctx.preallocatedVolumes.has(volume.name));
  setStorageOptions(out, source, volume.name, ctx);
  setCacheAndIo(out, { ctx, volume: volume.name, field });
  return out;
}

/**
 * An image on a filesystem claim that the domain would use, or a hotplugged containerDisk's image (mounted by
 * the node like a hotplugged claim's): the launcher looks at it before converting.
 */
export interface ClaimImage {
  readonly volume: string;
  /** The volume's source field: `spec.volumes[i].persistentVolumeClaim`, `.dataVolume`, `.ephemeral` or `.containerDisk`. */
  readonly field: string;
  readonly file: string;
  /**
   * A claim mounted in the Pod that the disk uses directly: its image is made when missing (an ephemeral
   * overlay's claim must hold one, the node mounts a hotplugged claim's).
   */
  readonly creatable: boolean;
}

function claimField(volume: Volume): string | undefined {
  if (isHotplugImage(volume)) return 'containerDisk';
  if (volume.persistentVolumeClaim !== undefined) return 'persistentVolumeClaim';
  if (volume.dataVolume !== undefined) return 'dataVolume';
  if (volume.ephemeral !== undefined) return 'ephemeral';
  return undefined;
}

/**
 * The filesystem-claim images of the disks the domain gets (block claims are devices, and a hotplugged claim
 * counts once it is mounted into the Pod), in disk order; an ephemeral volume's is its overlay's backing
 * image.
 */
export function claimImages(vmi: VirtualMachineInstance, ctx: ConverterContext): ClaimImage[] {
  const volumes = vmi.spec.volumes ?? [];
  const plan = diskPlan(vmi, ctx);
  const out: ClaimImage[] = [];
  for (const disk of vmi.spec.domain.devices.disks ?? []) {
    const index = volumes.findIndex((v) => v.name === disk.name);
    const volume = volumes[index];
    const field = volume === undefined ? undefined : claimField(volume);
    if (volume === undefined || field === undefined || isBlock(volume.name, plan)) continue;
    const hotplug = isHotplug(volume, plan);
    // An ephemeral hotplug is refused by the conversion itself.
    if (hotplug && (field === 'ephemeral' || !isMounted(volume.name, plan))) continue;
    out.push({
      volume: volume.name,
      field: `spec.volumes[${index}].${field}`,
      file: claimImageFile(volume.name, ctx, hotplug),
      creatable: field !== 'ephemeral' && !hotplug,
    });
  }
  return out;
}

function checkUniqueNames(disks: readonly VmiDisk[]): void {
  const seen = new Set<string>();
  disks.forEach((d, i) => {
    if (seen.has(d.name))
      throw new ConversionError(`spec.domain.devices.disks[${i}].name`, `duplicate disk ${d.name}`);
    seen.add(d.name);
  });
}

export const disksConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const disks = vmi.spec.domain.devices.disks ?? [];
  checkUniqueNames(disks);
  checkBootOrders(vmi);
  const withBuses = disks.map((d, i) => withBus(d, `spec.domain.devices.disks[${i}]`, ctx));
  const targets = assignDiskTargets(withBuses, vmi.status?.volumeStatus ?? []);
  const plan = diskPlan(vmi, ctx);
  const multiQueue = vmi.spec.domain.devices.blockMultiQueue === true;
  const queues = multiQueue ? vcpuCount(cpuTopology(vmi)) : undefined;
  withBuses.forEach((disk, i) => {
    const field = `spec.domain.devices.disks[${i}]`;
    const target = targets.get(disk.name);
    if (target === undefined) throw new ConversionError(`${field}.name`, 'no device name left for this disk');
    const device = diskDevice(disk, {
      field,
      bus: disk.bus,
      target,
      virtioModel: virtioModel(vmi, ctx),
      queues,
    });
    const backed = backDisk(device, disk, field, plan);
    if (backed !== undefined) domain.devices.disks.push(backed);
  });
});
