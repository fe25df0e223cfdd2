/** domain.features (ACPI, APIC, SMM, Hyper-V enlightenments, ...) and domain.clock. */
import { s, type Infer } from '../schema/dsl.ts';

/** A feature that is on unless `enabled: false` (KubeVirt defaults enabled to true). */
const featureState = s.object({ enabled: s.bool() });

const hyperv = s.object({
  relaxed: featureState,
  vapic: featureState,
  spinlocks: s.object({ enabled: s.bool(), spinlocks: s.uint32() }),
  vpindex: featureState,
  runtime: featureState,
  synic: featureState,
  synictimer: s.object({ enabled: s.bool(), direct: featureState }),
  reset: featureState,
  vendorid: s.object({ enabled: s.bool(), vendorid: s.string() }),
  frequencies: featureState,
  reenlightenment: featureState,
  tlbflush: featureState,
  ipi: featureState,
  evmcs: featureState,
});

export const features = s.object({
  acpi: featureState,
  apic: s.object({ enabled: s.bool(), endOfInterrupt: s.bool() }),
  smm: featureState,
  kvm: s.object({ hidden: s.bool() }),
  pvspinlock: featureState,
  hyperv,
  hypervPassthrough: featureState,
});
export type Features = Infer<typeof features>;

const tickPolicy = s.enum(['delay', 'catchup', 'merge', 'discard']);

/** Each timer is attached when `present` is absent or true. */
const timer = s.object({
  hpet: s.object({ present: s.bool(), tickPolicy }),
  kvm: s.object({ present: s.bool() }),
  pit: s.object({ present: s.bool(), tickPolicy }),
  rtc: s.object({ present: s.bool(), tickPolicy, track: s.enum(['guest', 'wall']) }),
  hyperv: s.object({ present: s.bool() }),
});

/** KubeVirt keeps unknown clock fields (its Clock type is marked preserve-unknown). */
export const clock = s.object(
  {
    utc: s.object({ offsetSeconds: s.int() }),
    /** TZ-style zone name, e.g. Europe/Berlin. */
    timezone: s.string(),
    timer,
  },
  { preserveUnknown: true },
);
export type Clock = Infer<typeof clock>;
