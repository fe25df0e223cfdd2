/**
 * `<features>`: ACPI (on unless disabled), APIC and SMM when asked, the Hyper-V enlightenments one by one (or
 * Hyper-V passthrough), a hidden KVM signature, paravirtual spinlocks, and vmport off on amd64
 * (kubevirt Convert_v1_Features_To_api_Features). Beyond KubeVirt, which hands them to QEMU and fails at
 * start: under emulation (TCG) the VP index enlightenment and Hyper-V passthrough are refused, since QEMU
 * needs KVM for them (the VP index is set through a KVM ioctl).
 */
import type { Features as VmiFeatures } from '../../kubevirt/index.ts';
import { configurator, onOff, type Configurator } from './configurator.ts';
import type { Features, Hyperv, OnOff } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

type VmiHyperv = NonNullable<VmiFeatures['hyperv']>;

const SIMPLE_ENLIGHTENMENTS = [
  'relaxed',
  'vapic',
  'vpindex',
  'runtime',
  'synic',
  'reset',
  'frequencies',
  'reenlightenment',
  'tlbflush',
  'ipi',
  'evmcs',
] as const;

function state(feature: { enabled?: boolean } | undefined): OnOff | undefined {
  return feature === undefined ? undefined : onOff(feature.enabled, true);
}

function hyperv(source: VmiHyperv): Hyperv {
  const out: Hyperv = {};
  for (const name of SIMPLE_ENLIGHTENMENTS) {
    const s = state(source[name]);
    if (s !== undefined) out[name] = s;
  }
  const { spinlocks, synictimer, vendorid } = source;
  if (spinlocks !== undefined) {
    out.spinlocks = {
      state: onOff(spinlocks.enabled, true),
      ...(spinlocks.spinlocks !== undefined && { retries: spinlocks.spinlocks }),
    };
  }
  if (synictimer !== undefined) {
    const direct = state(synictimer.direct);
    out.stimer = { state: onOff(synictimer.enabled, true), ...(direct !== undefined && { direct }) };
  }
  if (vendorid !== undefined) {
    out.vendorId = {
      state: onOff(vendorid.enabled, true),
      ...(vendorid.vendorid !== undefined && { value: vendorid.vendorid }),
    };
  }
  return out;
}

function enabled(feature: { enabled?: boolean } | undefined): boolean {
  return feature !== undefined && feature.enabled !== false;
}

function refuseUnderEmulation(h: Hyperv | undefined): void {
  const why = 'needs KVM, and this node runs guests under emulation (TCG)';
  if (h?.vpindex === 'on')
    throw new ConversionError('spec.domain.features.hyperv.vpindex', `${why}: QEMU cannot set the VP index`);
  if (h?.mode === 'passthrough') throw new ConversionError('spec.domain.features.hypervPassthrough', why);
}

export const featuresConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const source = vmi.spec.domain.features;
  if (source === undefined) return;
  const features: Features = {
    acpi: source.acpi?.enabled !== false,
    apic: enabled(source.apic),
    smm: enabled(source.smm),
  };
  if (source.hyperv !== undefined) features.hyperv = hyperv(source.hyperv);
  else if (enabled(source.hypervPassthrough)) features.hyperv = { mode: 'passthrough' };
  if (ctx.emulation) refuseUnderEmulation(features.hyperv);
  if (source.kvm !== undefined) features.kvmHidden = onOff(source.kvm.hidden, false);
  if (source.pvspinlock !== undefined) features.pvspinlock = onOff(source.pvspinlock.enabled, true);
  if (ctx.arch === 'amd64') features.vmport = 'off';
  domain.features = features;
});
