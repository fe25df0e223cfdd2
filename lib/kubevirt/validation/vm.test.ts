import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import type { AdmissionCause } from './causes.ts';
import { GATES } from './context.ts';
import { ctxWith, inv, ns } from './testing/fixtures.ts';
import { validVm, type VmChange } from './testing/vms.ts';
import { validateVm, type VmContext } from './vm.ts';

const ctx: VmContext = { ...ctxWith(), isKubevirtServiceAccount: false };

describe('validateVm: the template and the steps', () => {
  it.each<[string, VmChange, AdmissionCause[]]>([
    ['a valid VM', () => undefined, []],
    [
      'a template rule, at spec.template.spec',
      (vm) => (vm.spec.template.spec.domain.devices.inputs = [{ name: 'k', type: 'keyboard' }]),
      [inv('spec.template.spec.domain.devices.inputs[0].type', 'Input device can have only tablet type.')],
    ],
    [
      'a reserved label on the template',
      (vm) => (vm.spec.template.metadata = { labels: { 'kubevirt.io/created-by': 'x' } }),
      [
        ns(
          'spec.template.metadata.labels',
          'creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited',
        ),
      ],
    ],
    [
      'slirp on create (KubeVirt reports it at spec, not spec.template.spec)',
      (vm) => (vm.spec.template.spec.domain.devices.interfaces = [{ name: 'default', slirp: {} }]),
      [
        inv(
          'spec.domain.devices.interfaces[0].slirp',
          'Slirp interface support has been discontinued since v1.3',
        ),
      ],
    ],
    [
      'the template is checked with defaults applied (memory is requested as the guest memory)',
      (vm) => {
        const domain = vm.spec.template.spec.domain;
        domain.resources = {};
        domain.memory = { guest: '1Gi', hugepages: { pageSize: '2Mi' } };
      },
      [],
    ],
    [
      'a VM being deleted passes',
      (vm) => {
        vm.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
        delete vm.spec.runStrategy;
      },
      [],
    ],
  ])('%s', (_name, change, expected) => {
    expect(validateVm(validVm(change), undefined, ctx)).toEqual(expected);
  });

  it('slirp is only refused on create', () => {
    const vm = validVm(
      (v) => (v.spec.template.spec.domain.devices.interfaces = [{ name: 'default', slirp: {} }]),
    );
    expect(validateVm(vm, vm, ctx)).toEqual([]);
  });

  it('discontinued gates on create stop before the spec rules', () => {
    const vm = validVm((v) => {
      v.spec.template.spec.domain.devices.interfaces = [{ name: 'default', macvtap: {} }];
      delete v.spec.runStrategy;
    });
    expect(
      validateVm(vm, undefined, { ...ctxWith([GATES.MACVTAP]), isKubevirtServiceAccount: false }),
    ).toEqual([
      ns(
        '',
        'Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
      ),
    ]);
  });

  it('a defaulting failure is one cause without a field', () => {
    const vm = validVm((v) => {
      delete v.spec.template.spec.networks;
      delete v.spec.template.spec.domain.devices.interfaces;
    });
    const cluster = { ...DEFAULT_CLUSTER_DEFAULTS, permitBridgeInterfaceOnPodNetwork: false };
    expect(validateVm(vm, undefined, { ...ctx, cluster })).toEqual([
      inv('', 'bridge interface is not enabled in kubevirt-config'),
    ]);
  });
});
