/**
 * Per-architecture defaults: the disk bus of disks that name none (SATA on amd64, as KubeVirt v1.6 does, virtio
 * on arm64 and s390x), the watchdog model, arm64's EFI boot and host-passthrough CPU, and the default CPU model.
 */
import type { DiskBus } from '../v1/disk.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { DEFAULT_CPU_MODEL, type ClusterDefaults } from './cluster.ts';

type Spec = VirtualMachineInstanceSpec;

const HOST_PASSTHROUGH = 'host-passthrough';

/** The bus a disk without one gets on this architecture. */
export function defaultDiskBus(arch: string | undefined): DiskBus {
  return arch === 'arm64' || arch === 's390x' ? 'virtio' : 'sata';
}

function setDiskBuses(spec: Spec, bus: DiskBus): void {
  for (const disk of spec.domain.devices.disks ?? []) {
    for (const target of [disk.disk, disk.cdrom, disk.lun]) {
      if (target !== undefined) target.bus ??= bus;
    }
  }
}

function setWatchdog(spec: Spec, model: 'i6300esb' | 'diag288'): void {
  const watchdog = spec.domain.devices.watchdog;
  if (watchdog === undefined) return;
  const device = (watchdog[model] ??= {});
  device.action ??= 'reset';
}

function setArm64Defaults(spec: Spec): void {
  const cpu = (spec.domain.cpu ??= {});
  if (cpu.model === undefined || cpu.model === '') cpu.model = HOST_PASSTHROUGH;
  const firmware = (spec.domain.firmware ??= {});
  firmware.bootloader ??= { efi: { secureBoot: false } };
}

/** s390x has no ACPI: it is off unless the VMI says otherwise (runs before the API-type defaults). */
export function setArchFeatureDefaults(spec: Spec): void {
  if (spec.architecture !== 's390x') return;
  const acpi = ((spec.domain.features ??= {}).acpi ??= {});
  acpi.enabled ??= false;
}

export function setArchDefaults(spec: Spec, cfg: ClusterDefaults): void {
  const arch = spec.architecture;
  if (arch === 'arm64') setArm64Defaults(spec);
  else setWatchdog(spec, arch === 's390x' ? 'diag288' : 'i6300esb');
  setDiskBuses(spec, defaultDiskBus(arch));
  const cpu = (spec.domain.cpu ??= {});
  if (cpu.model === undefined || cpu.model === '') cpu.model = cfg.cpuModel ?? DEFAULT_CPU_MODEL;
}
