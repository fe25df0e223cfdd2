/**
 * The guest side of a disk (kubevirt Convert_v1_Disk_To_api_Disk): disk, lun or cdrom; bus and target name
 * (vda, sda and on, assigned by assignDiskTargets); a drive address on the virtio-scsi controller for SCSI disks;
 * virtio model; read-only (CD-ROMs by default); serial; shareable; boot order; PCI address; block sizes;
 * cache and io as asked; multi-queue. What backs it comes from volume-source.ts.
 */
import { type Disk as VmiDisk, type DiskBus } from '../../kubevirt/index.ts';
import type { Disk, DiskDriver, PciAddress } from './domain-spec.ts';
import { userAlias } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

export const DISK_BUSES: readonly string[] = ['virtio', 'sata', 'scsi', 'usb'];
const CACHE_MODES: readonly string[] = ['none', 'writethrough', 'writeback'];
const IO_MODES: readonly string[] = ['threads', 'native'];
const ERROR_POLICIES: readonly string[] = ['stop', 'ignore', 'report', 'enospace'];
const PCI_ADDRESS = /^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7])$/;

export type DiskKind = 'disk' | 'lun' | 'cdrom';

export function diskKind(disk: VmiDisk): DiskKind {
  if (disk.disk !== undefined) return 'disk';
  if (disk.lun !== undefined) return 'lun';
  if (disk.cdrom !== undefined) return 'cdrom';
  return 'disk';
}

/** Index of a device name within its prefix: sda → 0, sdz → 25, sdaa → 26 (inverse of formatDeviceName). */
export function deviceIndex(name: string, prefix: string): number {
  let value = 0;
  for (const ch of name.slice(prefix.length)) value = value * 26 + (ch.charCodeAt(0) - 96);
  return value - 1;
}

export function parsePciAddress(value: string, field: string): PciAddress {
  const m = PCI_ADDRESS.exec(value);
  if (m === null) throw new ConversionError(field, `${value} is not a PCI address (dddd:bb:ss.f)`);
  const [, domain = '', bus = '', slot = '', fn = ''] = m;
  return { type: 'pci', domain: `0x${domain}`, bus: `0x${bus}`, slot: `0x${slot}`, function: `0x${fn}` };
}

function oneOf(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!allowed.includes(value)) {
    throw new ConversionError(field, `must be one of ${allowed.join(', ')}, got ${value}`);
  }
  return value;
}

export interface DiskDeviceOptions {
  /** spec.domain.devices.disks[i] */
  readonly field: string;
  readonly bus: DiskBus;
  readonly target: string;
  readonly virtioModel: string;
  /** Queues per virtio disk (blockMultiQueue), or undefined. */
  readonly queues: number | undefined;
}

function readonlyOf(disk: VmiDisk): boolean {
  return disk.disk?.readonly ?? disk.lun?.readonly ?? disk.cdrom?.readonly ?? disk.cdrom !== undefined;
}

function checkShareable(disk: VmiDisk, field: string): string | undefined {
  const cache = disk.cache;
  if (disk.shareable !== true) return cache;
  if (cache !== undefined && cache !== 'none') {
    throw new ConversionError(`${field}.cache`, `a shareable disk requires cache none, got ${cache}`);
  }
  return 'none';
}

function pciAddress(disk: VmiDisk, kind: DiskKind, opts: DiskDeviceOptions): PciAddress | undefined {
  const address = disk.disk?.pciAddress ?? '';
  if (address === '' || kind !== 'disk') return undefined;
  const field = `${opts.field}.disk.pciAddress`;
  if (opts.bus !== 'virtio') throw new ConversionError(field, 'a PCI address needs the virtio bus');
  return parsePciAddress(address, field);
}

function driverOf(disk: VmiDisk, opts: DiskDeviceOptions): DiskDriver {
  const { field } = opts;
  const cache = oneOf(checkShareable(disk, field), CACHE_MODES, `${field}.cache`);
  const io = oneOf(disk.io, IO_MODES, `${field}.io`);
  const errorPolicy = oneOf(disk.errorPolicy, ERROR_POLICIES, `${field}.errorPolicy`) ?? 'stop';
  return {
    name: 'qemu',
    type: 'raw',
    ...(cache !== undefined && { cache }),
    errorPolicy,
    ...(io !== undefined && { io }),
    ...(opts.queues !== undefined && opts.bus === 'virtio' && { queues: opts.queues }),
  };
}

/** Model, serial, boot order, address and block sizes: the parts a disk may or may not have. */
function setOptionalParts(out: Disk, disk: VmiDisk, opts: DiskDeviceOptions): void {
  const { bus } = opts;
  if (out.device === 'disk' && bus === 'virtio') out.model = opts.virtioModel;
  if (disk.serial !== undefined && disk.serial !== '') out.serial = disk.serial;
  if (disk.bootOrder !== undefined) out.bootOrder = disk.bootOrder;
  if (bus === 'scsi') {
    out.address = { type: 'drive', controller: 0, bus: 0, unit: deviceIndex(opts.target, 'sd') };
  }
  const pci = pciAddress(disk, out.device, opts);
  if (pci !== undefined) out.address = pci;
  const custom = disk.blockSize?.custom;
  if (custom !== undefined) out.blockIo = { logical: custom.logical, physical: custom.physical };
}

/** The device part of a disk; type, source and driver type are placeholders until the volume fills them. */
export function diskDevice(disk: VmiDisk, opts: DiskDeviceOptions): Disk {
  const kind = diskKind(disk);
  const { field, bus } = opts;
  if (kind === 'cdrom' && bus === 'virtio') {
    throw new ConversionError(`${field}.cdrom.bus`, 'Bus type virtio is invalid for CD-ROM device.');
  }
  const out: Disk = {
    device: kind,
    type: 'file',
    source: {},
    target: { bus, dev: opts.target, ...(kind === 'cdrom' && { tray: disk.cdrom?.tray ?? 'closed' }) },
    driver: driverOf(disk, opts),
    readonly: readonlyOf(disk),
    shareable: kind === 'disk' && disk.shareable === true,
    alias: userAlias(disk.name),
  };
  setOptionalParts(out, disk, opts);
  return out;
}
