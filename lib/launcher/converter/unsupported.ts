/**
 * VMI features KubeVirt renders but this converter does not yet. Rather than start a guest without a device it
 * asked for, conversion fails naming the field (reason "unsupported"). GPUs and host devices are passed through
 * only when allocated through DRA (host-devices.ts), not by a device plugin's deviceName. The downward metrics
 * channel is rendered (downward-metrics.ts) only where the context says the node serves it. A TPM whose state must persist
 * and a persistent EFI variable store need the VM's backend-storage claim in the launcher Pod, where KubeVirt
 * keeps both: without it (a Pod rendered without the claim) the VMI is refused, since a guest that silently
 * loses its TPM keys (BitLocker) or boot entries on every restart is worse than one that does not start.
 */
import {
  hasPersistentEfi,
  hasPersistentTpm,
  isDraDevice,
  type HostDevice,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { ConversionError } from './errors.ts';

type Vmi = VirtualMachineInstance;

const nonEmpty = (list: readonly unknown[] | undefined): boolean => (list?.length ?? 0) > 0;

/** A GPU or host device other than a DRA one (host-devices.ts): a device plugin's, by deviceName. */
const hasDevicePluginDevice = (list: readonly HostDevice[] | undefined): boolean =>
  (list ?? []).some((d) => !isDraDevice(d));

/** Field → whether the VMI uses it. */
const CHECKS: Readonly<Record<string, (v: Vmi) => boolean>> = {
  'spec.domain.devices.gpus': (v) => hasDevicePluginDevice(v.spec.domain.devices.gpus),
  'spec.domain.devices.hostDevices': (v) => hasDevicePluginDevice(v.spec.domain.devices.hostDevices),
  'spec.domain.devices.panicDevices': (v) => nonEmpty(v.spec.domain.devices.panicDevices),
  'spec.domain.devices.sound': (v) => v.spec.domain.devices.sound !== undefined,
  'spec.domain.devices.clientPassthrough': (v) => v.spec.domain.devices.clientPassthrough !== undefined,
  'spec.domain.devices.autoattachVSOCK': (v) => v.spec.domain.devices.autoattachVSOCK === true,
  'spec.domain.launchSecurity': (v) => v.spec.domain.launchSecurity !== undefined,
  'spec.domain.cpu.dedicatedCpuPlacement': (v) => v.spec.domain.cpu?.dedicatedCpuPlacement === true,
  'spec.domain.cpu.numa': (v) => v.spec.domain.cpu?.numa?.guestMappingPassthrough !== undefined,
  'spec.domain.cpu.realtime': (v) => v.spec.domain.cpu?.realtime !== undefined,
  'spec.domain.firmware.acpi': (v) => v.spec.domain.firmware?.acpi !== undefined,
};

/** Field → whether the VMI asks for state kept across restarts, which needs the VM's backend storage. */
const PERSISTENT_STATE: Readonly<Record<string, (v: Vmi) => boolean>> = {
  'spec.domain.devices.tpm.persistent': (v) => hasPersistentTpm(v.spec),
  'spec.domain.firmware.bootloader.efi.persistent': (v) => hasPersistentEfi(v.spec),
};

const NO_BACKEND_STORAGE =
  'the state would be lost when the launcher Pod ends: the Pod does not mount the VM backend-storage claim ' +
  '(persistent-state-for-<vm>) that keeps it';

export const unsupportedConfigurator: Configurator = configurator((vmi, _domain, ctx) => {
  for (const [field, present] of Object.entries(CHECKS)) {
    if (present(vmi)) throw new ConversionError(field, 'not supported by this launcher yet', 'unsupported');
  }
  for (const [field, present] of Object.entries(PERSISTENT_STATE)) {
    if (present(vmi) && !ctx.backendStorage)
      throw new ConversionError(field, NO_BACKEND_STORAGE, 'unsupported');
  }
  if (vmi.spec.domain.devices.downwardMetrics !== undefined && !ctx.downwardMetricsServed) {
    throw new ConversionError(
      'spec.domain.devices.downwardMetrics',
      'not supported by this launcher yet: the node has no downward metrics server to answer the guest',
      'unsupported',
    );
  }
});
