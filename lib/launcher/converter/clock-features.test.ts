import { describe, expect, it } from '@jest/globals';
import type { Clock as VmiClock, Features as VmiFeatures } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { clockConfigurator } from './clock.ts';
import type { Arch } from './context.ts';
import type { Clock, Features } from './domain-spec.ts';
import type { ConversionError } from './errors.ts';
import { featuresConfigurator } from './features.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

const withClock = (clock: VmiClock): ReturnType<typeof withSpec> =>
  withSpec((s) => {
    s.domain.clock = clock;
  });

describe('clockConfigurator', () => {
  it.each<[string, VmiClock, Clock]>([
    ['UTC reset', { utc: {} }, { offset: 'utc', adjustment: 'reset', timers: [] }],
    ['neither UTC nor a time zone: UTC, which libvirt requires', {}, { offset: 'utc', timers: [] }],
    [
      'UTC with an offset',
      { utc: { offsetSeconds: -3600 } },
      { offset: 'utc', adjustment: '-3600', timers: [] },
    ],
    [
      'a time zone',
      { timezone: 'Europe/Berlin' },
      { offset: 'timezone', timezone: 'Europe/Berlin', timers: [] },
    ],
    [
      'timers in KubeVirt order',
      {
        timer: {
          hyperv: {},
          hpet: { present: false, tickPolicy: 'delay' },
          kvm: { present: true },
          pit: { tickPolicy: 'discard' },
          rtc: { tickPolicy: 'catchup', track: 'guest' },
        },
      },
      {
        offset: 'utc',
        timers: [
          { name: 'rtc', tickPolicy: 'catchup', present: 'yes', track: 'guest' },
          { name: 'pit', tickPolicy: 'discard', present: 'yes' },
          { name: 'kvmclock', present: 'yes' },
          { name: 'hpet', tickPolicy: 'delay', present: 'no' },
          { name: 'hypervclock', present: 'yes' },
        ],
      },
    ],
  ])('%s', (_, clock, expected) => {
    expect(runConfigurator(clockConfigurator, testVmi(withClock(clock))).clock).toEqual(expected);
  });

  it('sets no clock when the VMI has none', () => {
    expect(runConfigurator(clockConfigurator, testVmi()).clock).toBeUndefined();
  });

  it('refuses a fractional offset', () => {
    expect(() =>
      runConfigurator(clockConfigurator, testVmi(withClock({ utc: { offsetSeconds: 1.5 } }))),
    ).toThrow(expect.objectContaining({ field: 'spec.domain.clock.utc.offsetSeconds' }));
  });
});

describe('featuresConfigurator', () => {
  it.each<[string, VmiFeatures, Arch, Features]>([
    [
      'ACPI on when not mentioned; vmport off on amd64',
      {},
      'amd64',
      { acpi: true, apic: false, smm: false, vmport: 'off' },
    ],
    [
      'no vmport elsewhere; ACPI off when disabled',
      { acpi: { enabled: false } },
      's390x',
      { acpi: false, apic: false, smm: false },
    ],
    [
      'APIC, SMM, hidden KVM, pvspinlock',
      { apic: {}, smm: { enabled: true }, kvm: { hidden: true }, pvspinlock: { enabled: false } },
      'arm64',
      { acpi: true, apic: true, smm: true, kvmHidden: 'on', pvspinlock: 'off' },
    ],
    [
      'switched off APIC and SMM',
      { apic: { enabled: false }, smm: { enabled: false }, kvm: {} },
      'arm64',
      { acpi: true, apic: false, smm: false, kvmHidden: 'off' },
    ],
    [
      'Hyper-V passthrough',
      { hypervPassthrough: { enabled: true } },
      'arm64',
      { acpi: true, apic: false, smm: false, hyperv: { mode: 'passthrough' } },
    ],
  ])('%s', (_, features, arch, expected) => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.features = features;
      }),
    );
    expect(runConfigurator(featuresConfigurator, vmi, testCtx({ arch })).features).toEqual(expected);
  });

  it('renders each Hyper-V enlightenment with its state', () => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.features = {
          hyperv: {
            relaxed: {},
            vapic: { enabled: false },
            spinlocks: { spinlocks: 4096 },
            synictimer: { enabled: true, direct: { enabled: false } },
            vendorid: { vendorid: 'KubeVirt' },
            evmcs: {},
          },
        };
      }),
    );
    expect(runConfigurator(featuresConfigurator, vmi).features?.hyperv).toEqual({
      relaxed: 'on',
      vapic: 'off',
      spinlocks: { state: 'on', retries: 4096 },
      stimer: { state: 'on', direct: 'off' },
      vendorId: { state: 'on', value: 'KubeVirt' },
      evmcs: 'on',
    });
  });

  it('sets no features when the VMI has none', () => {
    expect(runConfigurator(featuresConfigurator, testVmi()).features).toBeUndefined();
  });

  it.each<[string, VmiFeatures, string | undefined]>([
    ['the VP index', { hyperv: { vpindex: {}, relaxed: {} } }, 'spec.domain.features.hyperv.vpindex'],
    [
      'Hyper-V passthrough',
      { hypervPassthrough: { enabled: true } },
      'spec.domain.features.hypervPassthrough',
    ],
    ['nothing when the VP index is off', { hyperv: { vpindex: { enabled: false }, relaxed: {} } }, undefined],
  ])('under emulation refuses %s, which QEMU needs KVM for', (_, features, refused) => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.features = features;
      }),
    );
    let field: string | undefined;
    try {
      runConfigurator(featuresConfigurator, vmi, testCtx({ emulation: true }));
    } catch (err) {
      field = (err as ConversionError).field;
    }
    expect(field).toBe(refused);
    expect(() => runConfigurator(featuresConfigurator, vmi, testCtx({ emulation: false }))).not.toThrow();
  });
});
