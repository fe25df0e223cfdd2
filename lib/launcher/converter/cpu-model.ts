/**
 * CPU model and features: host-model when the VMI names none, host-passthrough or a custom model with its
 * features and policies as asked. Under emulation (TCG) libvirt cannot give the guest the host's CPU, so
 * host-model and host-passthrough become the context's emulated model (qemu64 on amd64), or the first model
 * the hypervisor reports usable when that one is not. On amd64 a named model also disables mpx unless the VMI
 * set it, as KubeVirt does (libvirt's cpu_map still lists mpx for models whose hosts no longer have it).
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import type { Cpu, CpuFeature } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

const HOST_MODES = ['host-model', 'host-passthrough'] as const;
const POLICIES = ['force', 'require', 'optional', 'disable', 'forbid'];

type HostMode = (typeof HOST_MODES)[number];

function isHostMode(model: string): model is HostMode {
  return (HOST_MODES as readonly string[]).includes(model);
}

function features(vmi: VirtualMachineInstance): CpuFeature[] {
  return (vmi.spec.domain.cpu?.features ?? []).map((f, i) => {
    const field = `spec.domain.cpu.features[${i}]`;
    if (f.name === '') throw new ConversionError(`${field}.name`, 'must be set');
    if (f.policy === undefined || f.policy === '') return { name: f.name, policy: 'require' };
    if (!POLICIES.includes(f.policy)) {
      throw new ConversionError(`${field}.policy`, `must be one of ${POLICIES.join(', ')}, got ${f.policy}`);
    }
    return { name: f.name, policy: f.policy };
  });
}

function emulatedModel(ctx: ConverterContext): string {
  const usable = ctx.hostCpuModels;
  if (usable === undefined || usable.length === 0 || usable.includes(ctx.emulatedCpuModel)) {
    return ctx.emulatedCpuModel;
  }
  return usable[0] ?? ctx.emulatedCpuModel;
}

function customModel(model: string, ctx: ConverterContext): Pick<Cpu, 'mode' | 'model'> {
  const usable = ctx.hostCpuModels;
  if (usable !== undefined && !usable.includes(model)) {
    throw new ConversionError('spec.domain.cpu.model', `CPU model ${model} is not usable on this host`);
  }
  return { mode: 'custom', model };
}

export const cpuModelConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const asked = vmi.spec.domain.cpu?.model ?? '';
  const model = asked === '' ? 'host-model' : asked;
  const cpuFeatures = features(vmi);
  if (!isHostMode(model)) {
    Object.assign(domain.cpu, customModel(model, ctx));
    if (ctx.arch === 'amd64' && !cpuFeatures.some((f) => f.name === 'mpx')) {
      cpuFeatures.push({ name: 'mpx', policy: 'disable' });
    }
  } else if (ctx.emulation) {
    Object.assign(domain.cpu, { mode: 'custom', model: emulatedModel(ctx) });
  } else {
    domain.cpu.mode = model;
  }
  domain.cpu.features = cpuFeatures;
});
