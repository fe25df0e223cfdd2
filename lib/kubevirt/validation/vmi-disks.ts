/**
 * Each disk of domain.devices.disks on its own (KubeVirt vmi-create-admitter.go validateDisks): unique names,
 * one target, PCI address, boot order, bus, serial (the Deckhouse fork's length rule), cache, io, error policy,
 * the name as a container name, custom block sizes. Some of KubeVirt's fields are built from the disks path
 * with `domain.devices.disks` appended again (`spec.domain.devices.disks.domain.devices.disks[0].io`); they are
 * kept as KubeVirt sends them.
 */
import type { Disk, DiskBus } from '../v1/disk.ts';
import { child, invalid, item, notSupported, type Causes } from './causes.ts';
import { isDns1123Label } from './dns.ts';
import type { SpecRule } from './rule.ts';

const SERIAL = /^[A-Za-z0-9_.+-]+$/;
const PCI_ADDRESS = /^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7]{1})$/;
const MAX_SERIAL = 256;
const MAX_SCSI_SERIAL = 36;
const MIN_BLOCK = 512;
const MAX_BLOCK = 2097152;
const CACHES: readonly string[] = ['none', 'writethrough', 'writeback'];
const IO_MODES: readonly string[] = ['native', 'threads'];
const ERROR_POLICIES: readonly string[] = ['stop', 'ignore', 'report', 'enospace'];

/** Where one disk's causes point: `disks[i]`, and KubeVirt's doubled paths. */
interface DiskPaths {
  readonly disks: string;
  readonly at: string;
  readonly doubled: string;
  readonly pciBase: string;
}

function pathsOf(disks: string, i: number): DiskPaths {
  return {
    disks,
    at: `${disks}[${i}]`,
    doubled: item(disks, ['domain', 'devices', 'disks'], i),
    pciBase: item(disks, ['domain', 'devices', 'disks', 'disk'], i),
  };
}

/** getDiskBus / getDiskType: disk, then lun, then cdrom. */
function target(disk: Disk): { type: 'disk' | 'lun' | 'cdrom' | ''; bus: string } {
  if (disk.disk !== undefined) return { type: 'disk', bus: disk.disk.bus ?? '' };
  if (disk.lun !== undefined) return { type: 'lun', bus: disk.lun.bus ?? '' };
  if (disk.cdrom !== undefined) return { type: 'cdrom', bus: disk.cdrom.bus ?? '' };
  return { type: '', bus: '' };
}

export function diskBusOf(disk: Disk): DiskBus | '' {
  return target(disk).bus as DiskBus | '';
}

function names(disks: readonly Disk[], i: number, p: DiskPaths): Causes {
  const name = disks[i]?.name;
  return disks
    .slice(0, i)
    .flatMap((other, j) =>
      other.name === name
        ? [invalid(child(p.at, 'name'), `${p.at} and ${p.disks}[${j}] must not have the same Name.`)]
        : [],
    );
}

function targetAndPci(disk: Disk, p: DiskPaths): Causes {
  const causes: Causes = [];
  if ([disk.disk, disk.lun, disk.cdrom].filter((t) => t !== undefined).length > 1) {
    causes.push(invalid(p.at, `${p.at} can only have a single target type defined`));
  }
  const address = disk.disk?.pciAddress ?? '';
  if (address === '') return causes;
  const f = child(p.pciBase, 'pciAddress');
  const name = child(p.pciBase, 'name');
  if (disk.disk?.bus !== 'virtio') {
    causes.push(invalid(f, `disk ${name} - setting a PCI address is only possible with bus type virtio.`));
  }
  if (!PCI_ADDRESS.test(address))
    causes.push(invalid(f, `disk ${name} has malformed PCI address (${address}).`));
  return causes;
}

function busSupport(disk: Disk, p: DiskPaths): Causes {
  const { type, bus } = target(disk);
  if (bus === '') return [];
  const causes: Causes = [];
  const busField = child(p.at, type, 'bus');
  if (bus === 'ide') causes.push(invalid(busField, 'IDE bus is not supported'));
  else if (bus === 'virtio' && type === 'cdrom') {
    causes.push(invalid(busField, `Bus type ${bus} is invalid for CD-ROM device`));
  } else if (bus === 'sata' && disk.disk?.readonly === true) {
    causes.push(invalid(child(p.at, 'disk', 'bus'), `${bus} hard-disks do not support read-only.`));
  } else if (!['virtio', 'sata', 'scsi', 'usb'].includes(bus)) {
    causes.push(
      invalid(
        busField,
        `${p.at} is set with an unrecognized bus ${bus}, must be one of: [virtio scsi sata usb]`,
      ),
    );
  }
  if (disk.dedicatedIOThread === true && bus !== 'virtio') {
    causes.push(notSupported(p.doubled, `IOThreads are not supported for disks on a ${bus} bus`));
  }
  return causes;
}

function serial(disk: Disk, p: DiskPaths): Causes {
  const value = disk.serial ?? '';
  const f = child(p.at, 'serial');
  const causes: Causes = [];
  if (value !== '' && !SERIAL.test(value)) {
    causes.push(
      invalid(f, `${p.at} must be made up of the following characters [A-Za-z0-9_.+-], if specified`),
    );
  }
  const length = Buffer.byteLength(value, 'utf8');
  if (disk.disk?.bus === 'scsi' && length > MAX_SCSI_SERIAL) {
    causes.push(
      invalid(
        f,
        `SCSI device serial should not be more than ${MAX_SCSI_SERIAL} symbols. Got ${length} (${value}) for disk ${p.at}`,
      ),
    );
  } else if (length > MAX_SERIAL) {
    causes.push(
      invalid(
        f,
        `disk serial should not be more than ${MAX_SERIAL} symbols. Got ${length} (${value}) for disk ${p.at}.`,
      ),
    );
  }
  return causes;
}

function modes(disk: Disk, p: DiskPaths): Causes {
  const causes: Causes = [];
  const cache = disk.cache ?? '';
  if (cache !== '' && !CACHES.includes(cache)) {
    causes.push(invalid(child(p.at, 'cache'), `${child(p.at, 'cache')} has invalid value ${cache}`));
  }
  const io = disk.io ?? '';
  if (io !== '' && !IO_MODES.includes(io)) {
    causes.push(
      notSupported(
        child(p.doubled, 'io'),
        `Disk IO mode for ${p.disks} is not supported. Supported modes are: native, threads.`,
      ),
    );
  }
  const policy = disk.errorPolicy;
  if (policy !== undefined && !ERROR_POLICIES.includes(policy)) {
    const f = child(p.at, 'errorPolicy');
    causes.push(invalid(f, `${f} has invalid value "${policy}"`));
  }
  return causes;
}

function customSize(p: DiskPaths, kind: 'logical' | 'physical', size: number): Causes {
  const f = child(p.at, 'blockSize', 'custom', kind);
  if (size < MIN_BLOCK) {
    return [invalid(f, `Provided size of ${size} is less than the supported minimum size of ${MIN_BLOCK}`)];
  }
  if (size > MAX_BLOCK) {
    return [
      invalid(f, `Provided size of ${size} is greater than the supported maximum size of ${MAX_BLOCK}`),
    ];
  }
  return (size & (size - 1)) !== 0 ? [invalid(f, `Provided size of ${size} is not a power of 2`)] : [];
}

function blockSize(disk: Disk, p: DiskPaths): Causes {
  const custom = disk.blockSize?.custom;
  if (custom === undefined) return [];
  const match = disk.blockSize?.matchVolume;
  if (match !== undefined && match.enabled !== false) {
    return [
      invalid(child(p.at, 'blockSize'), "Block size matching can't be enabled together with a custom value"),
    ];
  }
  if (custom.logical > custom.physical) {
    return [
      invalid(
        child(p.at, 'blockSize', 'custom', 'logical'),
        `Logical size ${custom.logical} must be the same or less than the physical size of ${custom.physical}`,
      ),
    ];
  }
  return [...customSize(p, 'logical', custom.logical), ...customSize(p, 'physical', custom.physical)];
}

export const disks: SpecRule = (spec, _ctx, path) => {
  const list = spec.domain.devices.disks ?? [];
  const base = child(path, 'domain', 'devices', 'disks');
  return list.flatMap((disk, i) => {
    const p = pathsOf(base, i);
    return [
      ...names(list, i, p),
      ...targetAndPci(disk, p),
      ...(disk.bootOrder !== undefined && disk.bootOrder < 1
        ? [invalid(child(p.at, 'bootOrder'), `${p.at} must have a boot order > 0, if supplied`)]
        : []),
      ...busSupport(disk, p),
      ...serial(disk, p),
      ...modes(disk, p),
      ...isDns1123Label(disk.name).map((err) => invalid(child(p.doubled, 'name'), err)),
      ...blockSize(disk, p),
    ];
  });
};
