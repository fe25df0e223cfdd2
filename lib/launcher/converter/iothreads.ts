/**
 * IOThreads (kubevirt converter.go setIOThreads): once the VMI has an ioThreadsPolicy or a disk asks for a
 * dedicated IOThread, the domain gets a number of IOThreads and each virtio disk is put on one; disks on other
 * buses stay on QEMU's main loop. The supplementalPool policy is refused: it maps a disk's queues to a pool of
 * IOThreads, which libvirt takes from 10.0 on and this image's libvirt 9.0 would drop without a word. Runs after
 * the disks and the controllers, which it adjusts.
 */
import { quantityValue, type Disk as VmiDisk, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { cpuTopology, vcpuCount } from './cpu-topology.ts';
import type { Disk, DomainSpec } from './domain-spec.ts';
import { atField, ConversionError } from './errors.ts';

const dedicated = (disk: VmiDisk): boolean => disk.dedicatedIOThread === true;

function wantsIOThreads(vmi: VirtualMachineInstance): boolean {
  return (
    vmi.spec.domain.ioThreadsPolicy !== undefined || (vmi.spec.domain.devices.disks ?? []).some(dedicated)
  );
}

/** CPUs of the request, else the limit, rounded up; 1 without either. */
function requestedCpus(vmi: VirtualMachineInstance): number {
  const { requests, limits } = vmi.spec.domain.resources ?? {};
  for (const [list, name] of [
    [requests, 'requests'],
    [limits, 'limits'],
  ] as const) {
    const q = list?.['cpu'];
    if (q === undefined) continue;
    const field = `spec.domain.resources.${name}.cpu`;
    return atField(field, () => quantityValue(q, field));
  }
  return 1;
}

/**
 * How many IOThreads the disks may take in all: one for `shared` (and for a disk's dedicatedIOThread alone);
 * two per requested CPU for `auto`, unless the emulator thread has a dedicated CPU to share with the IOThread.
 */
function threadLimit(vmi: VirtualMachineInstance): number {
  const cpu = vmi.spec.domain.cpu;
  if (vmi.spec.domain.ioThreadsPolicy !== 'auto') return 1;
  if (cpu?.dedicatedCpuPlacement === true && cpu.isolateEmulatorThread === true) return 1;
  return 2 * requestedCpus(vmi);
}

/**
 * The IOThreads of the domain and how many of them the disks without a dedicated one share: every disk of the
 * VMI counts (whatever its bus), and when they are more than the limit the shared ones shrink to what the
 * dedicated ones leave, but never below one.
 */
function ioThreadCounts(vmi: VirtualMachineInstance): { readonly total: number; readonly shared: number } {
  const disks = vmi.spec.domain.devices.disks ?? [];
  const own = disks.filter(dedicated).length;
  const limit = threadLimit(vmi);
  const shared = disks.length > limit ? Math.max(1, limit - own) : disks.length - own;
  return { total: shared + own, shared };
}

const virtioDisks = (domain: DomainSpec): Disk[] =>
  domain.devices.disks.filter((d) => d.target.bus === 'virtio');

/**
 * A disk with dedicatedIOThread gets the next thread after the shared ones; the others take the shared ones
 * in turn. Returns the shared thread that would come next.
 */
function placeOnThreads(vmi: VirtualMachineInstance, domain: DomainSpec, own: ReadonlySet<string>): number {
  const { total, shared } = ioThreadCounts(vmi);
  if (total !== 0) domain.ioThreads = total;
  let nextShared = 1;
  let nextOwn = shared + 1;
  for (const disk of virtioDisks(domain)) {
    if (own.has(disk.alias.name)) {
      disk.driver.iothread = nextOwn++;
    } else {
      disk.driver.iothread = nextShared;
      nextShared = (nextShared % Math.max(shared, 1)) + 1;
    }
  }
  return nextShared;
}

/**
 * virtio-scsi disks cannot have an IOThread of their own: a SCSI disk asking for one puts the SCSI controller
 * on `thread`, with a queue per vCPU.
 */
function placeScsiController(
  vmi: VirtualMachineInstance,
  domain: DomainSpec,
  own: ReadonlySet<string>,
  thread: number,
): void {
  if (!domain.devices.disks.some((d) => d.target.bus === 'scsi' && own.has(d.alias.name))) return;
  const driver = { iothread: thread, queues: vcpuCount(cpuTopology(vmi)) };
  domain.devices.controllers = domain.devices.controllers.map((c) =>
    c.type === 'scsi' ? { ...c, driver } : c,
  );
}

export const ioThreadsConfigurator: Configurator = configurator((vmi, domain) => {
  if (!wantsIOThreads(vmi)) return;
  const own = new Set((vmi.spec.domain.devices.disks ?? []).filter(dedicated).map((d) => d.name));
  if (vmi.spec.domain.ioThreadsPolicy === 'supplementalPool') {
    throw new ConversionError(
      'spec.domain.ioThreadsPolicy',
      'supplementalPool needs libvirt 10.0 or later, this launcher has 9.0',
      'unsupported',
    );
  }
  placeScsiController(vmi, domain, own, placeOnThreads(vmi, domain, own));
});
