import { describe, expect, it } from '@jest/globals';
import { newVmi, withSpec } from '../testing/builders.ts';
import { defaulted } from '../testing/vmi-rows.ts';
import type { Features } from '../v1/features.ts';
import type { Cpu } from '../v1/domain.ts';

type Hyperv = NonNullable<Features['hyperv']>;

const ON = { enabled: true };
const OFF = { enabled: false };

/** A VMI with these enlightenments (and CPU features), defaulted as the VMI mutating webhook does. */
function afterDefaults(hyperv: Hyperv, cpuFeatures?: Cpu['features']): ReturnType<typeof defaulted> {
  return defaulted(
    newVmi(
      withSpec((s) => {
        s.domain.features = { hyperv };
        if (cpuFeatures !== undefined) s.domain.cpu = { features: cpuFeatures };
      }),
    ),
  );
}

describe('withVmiDefaults: Hyper-V dependencies', () => {
  it.each<[string, Hyperv, Hyperv]>([
    ['synic switches vpindex on', { synic: {} }, { synic: ON, vpindex: ON }],
    [
      'the SynIC timer switches synic on, and synic vpindex',
      { synictimer: {} },
      { synictimer: ON, synic: ON, vpindex: ON },
    ],
    [
      'the direct SynIC timer likewise',
      { synictimer: { direct: {} } },
      { synictimer: { enabled: true, direct: ON }, synic: ON, vpindex: ON },
    ],
    ['ipi switches vpindex on', { ipi: {} }, { ipi: ON, vpindex: ON }],
    ['tlbflush switches vpindex on', { tlbflush: {} }, { tlbflush: ON, vpindex: ON }],
    ['evmcs switches vapic on', { evmcs: {} }, { evmcs: ON, vapic: ON }],
    [
      'a switched-off feature needs nothing',
      { synictimer: OFF, evmcs: OFF },
      { synictimer: OFF, evmcs: OFF },
    ],
    ['needed features already on stay', { synic: {}, vpindex: {} }, { synic: ON, vpindex: ON }],
    [
      'a needed feature switched off stays off (validation refuses the VMI)',
      { synic: {}, vpindex: OFF },
      { synic: ON, vpindex: OFF },
    ],
    [
      'the first conflict ends the pass: what came before it is kept, what comes after is not done',
      { evmcs: {}, ipi: {}, vpindex: OFF, synictimer: {} },
      { evmcs: ON, vapic: ON, ipi: ON, vpindex: OFF, synictimer: ON },
    ],
    [
      'features that need nothing are left alone',
      { relaxed: {}, runtime: OFF },
      { relaxed: ON, runtime: OFF },
    ],
  ])('%s', (_, hyperv, expected) => {
    expect(afterDefaults(hyperv).spec.domain.features?.hyperv).toEqual(expected);
  });

  it.each<[string, Hyperv, Cpu['features'], Cpu['features']]>([
    ['evmcs requires the vmx CPU feature', { evmcs: {} }, undefined, [{ name: 'vmx', policy: 'require' }]],
    [
      'an existing vmx feature is made required, other features stay',
      { evmcs: {} },
      [{ name: 'pdpe1gb' }, { name: 'vmx', policy: 'optional' }],
      [{ name: 'pdpe1gb' }, { name: 'vmx', policy: 'require' }],
    ],
    [
      'vmx is added after the features given',
      { evmcs: {} },
      [{ name: 'pdpe1gb', policy: 'require' }],
      [
        { name: 'pdpe1gb', policy: 'require' },
        { name: 'vmx', policy: 'require' },
      ],
    ],
    ['no vmx for evmcs switched off', { evmcs: OFF }, undefined, undefined],
    ['no vmx when a conflict ended the pass', { evmcs: {}, synic: {}, vpindex: OFF }, undefined, undefined],
  ])('%s', (_, hyperv, given, expected) => {
    expect(afterDefaults(hyperv, given).spec.domain.cpu?.features).toEqual(expected);
  });

  it('leaves a VMI without Hyper-V features alone', () => {
    const out = defaulted(newVmi());
    expect(out.spec.domain.features?.hyperv).toBeUndefined();
    expect(out.spec.domain.cpu?.features).toBeUndefined();
  });
});
