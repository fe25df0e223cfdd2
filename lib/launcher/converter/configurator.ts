/**
 * One device area of the conversion: reads the VMI (and the context), fills its part of the domain, or throws a
 * ConversionError naming the VMI field at fault (kubevirt converter/types/builder.go DomainConfigurator).
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { ConverterContext } from './context.ts';
import type { DomainSpec } from './domain-spec.ts';

export interface Configurator {
  configure(vmi: VirtualMachineInstance, domain: DomainSpec, ctx: ConverterContext): void;
}

/** A configurator from a function. */
export function configurator(fn: Configurator['configure']): Configurator {
  return { configure: fn };
}

/** virtio device model: transitional when the VMI or the context asks for it; plain virtio on s390x. */
export function virtioModel(vmi: VirtualMachineInstance, ctx: ConverterContext): string {
  if (ctx.arch === 's390x') return 'virtio';
  const transitional = ctx.virtioTransitional || vmi.spec.domain.devices.useVirtioTransitional === true;
  return transitional ? 'virtio-transitional' : 'virtio-non-transitional';
}

export function onOff(value: boolean | undefined, defaultOn: boolean): 'on' | 'off' {
  return (value ?? defaultOn) ? 'on' : 'off';
}

export function yesNo(value: boolean | undefined, defaultYes: boolean): 'yes' | 'no' {
  return (value ?? defaultYes) ? 'yes' : 'no';
}
