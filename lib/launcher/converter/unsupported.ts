/**
 * VMI features KubeVirt renders but this converter does not yet. Rather than start a guest without a device it
 * asked for, conversion fails naming the field (reason "unsupported"). The downward metrics channel is
 * rendered (downward-metrics.ts) only where the context says the node serves it.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { ConversionError } from './errors.ts';

type Vmi = VirtualMachineInstance;

const nonEmpty = (list: readonly unknown[] | undefined): boolean => (list?.length ?? 0) > 0;

/** Field → whether the VMI uses it. */
const CHECKS: Readonly<Record<string, (v: Vmi) => boolean>> = {
  'spec.domain.devices.gpus': (v) => nonEmpty(v.spec.domain.devices.gpus),
  'spec.domain.devices.hostDevices': (v) => nonEmpty(v.spec.domain.devices.hostDevices),
  'spec.domain.devices.panicDevices': (v) => nonEmpty(v.spec.domain.devices.panicDevices),
  'spec.domain.devices.tpm': (v) =>
    v.spec.domain.devices.tpm !== undefined && v.spec.domain.devices.tpm.enabled !== false,
  'spec.domain.devices.sound': (v) => v.spec.domain.devices.sound !== undefined,
  'spec.domain.devices.clientPassthrough': (v) => v.spec.domain.devices.clientPassthrough !== undefined,
  'spec.domain.devices.autoattachVSOCK': (v) => v.spec.domain.devices.autoattachVSOCK === true,
  'spec.domain.launchSecurity': (v) => v.spec.domain.launchSecurity !== undefined,
  'spec.domain.cpu.dedicatedCpuPlacement': (v) => v.spec.domain.cpu?.dedicatedCpuPlacement === true,
  'spec.domain.cpu.numa': (v) => v.spec.domain.cpu?.numa?.guestMappingPassthrough !== undefined,
  'spec.domain.cpu.realtime': (v) => v.spec.domain.cpu?.realtime !== undefined,
  'spec.domain.firmware.acpi': (v) => v.spec.domain.firmware?.acpi !== undefined,
};

export const unsupportedConfigurator: Configurator = configurator((vmi, _domain, ctx) => {
  for (const [field, present] of Object.entries(CHECKS)) {
    if (present(vmi)) throw new ConversionError(field, 'not supported by this launcher yet', 'unsupported');
  }
  if (vmi.spec.domain.devices.downwardMetrics !== undefined && !ctx.downwardMetricsServed) {
    throw new ConversionError(
      'spec.domain.devices.downwardMetrics',
      'not supported by this launcher yet: the node has no downward metrics server to answer the guest',
      'unsupported',
    );
  }
});
