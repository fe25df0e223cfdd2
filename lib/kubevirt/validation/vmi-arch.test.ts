import { describe, expect, it } from '@jest/globals';
import { ctxWith, inv, ns, patched, req, type Row } from './testing/fixtures.ts';
import { hyperv, perArchitecture } from './vmi-arch.ts';

const HV = 'spec.domain.features.hyperv.domain.features.hyperv';

describe('hyperv (VMI create)', () => {
  it.each<Row>([
    ['no Hyper-V', () => undefined, []],
    [
      'synic and its timer with vpindex',
      (s) =>
        (s.domain.features = {
          hyperv: { vpindex: { enabled: true }, synic: { enabled: true }, synictimer: { enabled: true } },
        }),
      [],
    ],
    [
      'synic without vpindex',
      (s) => (s.domain.features = { hyperv: { synic: { enabled: true }, vpindex: { enabled: false } } }),
      [inv(`${HV}.synic`, `'${HV}.synic' requires '${HV}.vpindex', which was disabled.`)],
    ],
    [
      'ipi, tlbflush and the synic timer without what they need',
      (s) =>
        (s.domain.features = {
          hyperv: { ipi: { enabled: true }, tlbflush: { enabled: true }, synictimer: { enabled: true } },
        }),
      [
        inv(`${HV}.ipi`, `'${HV}.ipi' requires '${HV}.vpindex', which was disabled.`),
        inv(`${HV}.tlbflush`, `'${HV}.tlbflush' requires '${HV}.vpindex', which was disabled.`),
        inv(`${HV}.synictimer`, `'${HV}.synictimer' requires '${HV}.synic', which was disabled.`),
      ],
    ],
    [
      'evmcs without vapic or CPU features',
      (s) => (s.domain.features = { hyperv: { evmcs: { enabled: true } } }),
      [
        inv(`${HV}.evmcs`, `'${HV}.evmcs' requires '${HV}.vapic', which was disabled.`),
        req('spec.domain.cpu.features', 'vmx cpu feature is required when evmcs is set'),
      ],
    ],
    [
      'evmcs with vmx optional',
      (s) => {
        s.domain.features = { hyperv: { evmcs: { enabled: true }, vapic: { enabled: true } } };
        s.domain.cpu = { cores: 1, features: [{ name: 'vmx', policy: 'optional' }] };
      },
      [inv('spec.domain.cpu.features[0].policy', 'vmx cpu feature has to be set to require policy')],
    ],
    [
      'Hyper-V features with passthrough',
      (s) =>
        (s.domain.features = {
          hyperv: { relaxed: { enabled: true } },
          hypervPassthrough: { enabled: true },
        }),
      [
        inv(
          'spec.domain.features.hyperv',
          'Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough.',
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    expect(hyperv(patched(patch), ctxWith(), 'spec')).toEqual(expected);
  });
});

describe('perArchitecture (VMI create)', () => {
  it.each<Row>([
    [
      'amd64 with an i6300esb watchdog and VGA',
      (s) =>
        Object.assign(s.domain.devices, { watchdog: { name: 'w', i6300esb: {} }, video: { type: 'vga' } }),
      [],
    ],
    [
      'amd64 with a diag288 watchdog',
      (s) => (s.domain.devices.watchdog = { name: 'w', diag288: {} }),
      [ns('spec.domain.devices.watchdog', 'amd64 only supports I6300ESB watchdog device')],
    ],
    [
      'amd64 with a qxl video device',
      (s) => (s.domain.devices.video = { type: 'qxl' }),
      [ns('spec.domain.devices.video.type', "video model 'qxl' is not supported on amd64 architecture")],
    ],
    ['arm64 passes', (s) => (s.architecture = 'arm64'), []],
    [
      'riscv64',
      (s) => (s.architecture = 'riscv64'),
      [inv('spec.architecture', 'unsupported architecture: riscv64')],
    ],
    [
      'no architecture',
      (s) => delete s.architecture,
      [inv('spec.architecture', 'unsupported architecture: ')],
    ],
  ])('%s', (_name, patch, expected) => {
    expect(perArchitecture(patched(patch), ctxWith(), 'spec')).toEqual(expected);
  });
});
