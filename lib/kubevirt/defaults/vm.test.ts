import { describe, expect, it } from '@jest/globals';
import { newVm, withArch } from '../testing/builders.ts';
import type { VirtualMachine } from '../v1/objects.ts';
import { DEFAULT_CLUSTER_DEFAULTS } from './cluster.ts';
import { runStrategyOf, withVmDefaults } from './vm.ts';

describe('withVmDefaults', () => {
  it.each<[string, VirtualMachine, (v: VirtualMachine) => unknown, unknown]>([
    ['template architecture', newVm(), (v) => v.spec.template.spec.architecture, 'amd64'],
    ['template machine type', newVm(), (v) => v.spec.template.spec.domain.machine, { type: 'q35' }],
    [
      'arm64 template machine type',
      newVm(withArch('arm64')),
      (v) => v.spec.template.spec.domain.machine,
      { type: 'virt' },
    ],
    [
      'instancetype and preference kinds default to the cluster-wide kinds',
      {
        ...newVm(),
        spec: { ...newVm().spec, instancetype: { name: 'u1.small' }, preference: { name: 'fedora' } },
      },
      (v) => [v.spec.instancetype?.kind, v.spec.preference?.kind],
      ['virtualmachineclusterinstancetype', 'virtualmachineclusterpreference'],
    ],
    [
      'a namespaced instancetype kind stays',
      {
        ...newVm(),
        spec: { ...newVm().spec, instancetype: { name: 'x', kind: 'VirtualMachineInstancetype' } },
      },
      (v) => v.spec.instancetype?.kind,
      'VirtualMachineInstancetype',
    ],
    [
      'the template is not given a network or disks',
      newVm(),
      (v) => v.spec.template.spec.networks,
      undefined,
    ],
  ])('%s', (_name, vm, select, expected) => {
    expect(select(withVmDefaults(vm))).toEqual(expected);
  });

  it('sets firmware ids on create only when missing', () => {
    const out = withVmDefaults(newVm(), DEFAULT_CLUSTER_DEFAULTS, { firmwareUuid: 'u', firmwareSerial: 's' });
    expect(out.spec.template.spec.domain.firmware).toEqual({ uuid: 'u', serial: 's' });
    const kept = withVmDefaults(out, DEFAULT_CLUSTER_DEFAULTS, {
      firmwareUuid: 'other',
      firmwareSerial: 'other',
    });
    expect(kept.spec.template.spec.domain.firmware).toEqual({ uuid: 'u', serial: 's' });
    expect(withVmDefaults(newVm()).spec.template.spec.domain.firmware).toBeUndefined();
  });

  it('does not touch its input', () => {
    const vm = newVm();
    const before = structuredClone(vm);
    withVmDefaults(vm);
    expect(vm).toEqual(before);
  });
});

describe('runStrategyOf', () => {
  it.each<[string, VirtualMachine['spec'], string]>([
    ['running true', { running: true, template: { spec: { domain: { devices: {} } } } }, 'Always'],
    ['running false', { running: false, template: { spec: { domain: { devices: {} } } } }, 'Halted'],
    [
      'runStrategy',
      { runStrategy: 'RerunOnFailure', template: { spec: { domain: { devices: {} } } } },
      'RerunOnFailure',
    ],
    ['neither', { template: { spec: { domain: { devices: {} } } } }, 'Halted'],
  ])('%s → %s', (_name, spec, expected) => {
    expect(runStrategyOf({ spec })).toBe(expected);
  });

  it('refuses running together with runStrategy', () => {
    expect(() =>
      runStrategyOf({
        spec: { running: true, runStrategy: 'Always', template: { spec: { domain: { devices: {} } } } },
      }),
    ).toThrow(/mutually exclusive/);
  });
});
