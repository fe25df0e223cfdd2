import { describe, expect, it } from '@jest/globals';
import type { HostDevice } from '../v1/devices.ts';
import type { VirtualMachineResourceClaimRequest } from '../v1/vm.ts';
import type { AdmissionCause } from './causes.ts';
import { ctxWith, inv, ns, raw, validSpec } from './testing/fixtures.ts';
import { validVm } from './testing/vms.ts';
import { validateVm, type VmContext } from './vm.ts';
import type { RunningVmi } from './vm-pending-requests.ts';

const F = 'Status.resourceClaimRequests';
const ctx: VmContext = { ...ctxWith(), isKubevirtServiceAccount: true };

/** What the api writes for addresourceclaim: the claim and the host device named after the request. */
const add = (
  name: string,
  hostDevice: HostDevice = { name, claimName: name, requestName: 'gpu' },
  template = `${name}-template`,
): VirtualMachineResourceClaimRequest => ({
  addResourceClaimOptions: {
    name,
    hostDevice,
    resourceClaim: { name, resourceClaimTemplateName: template, hotpluggable: true },
  },
});
const remove = (name: string): VirtualMachineResourceClaimRequest => ({
  removeResourceClaimOptions: { name },
});
const device = (over: Partial<HostDevice>): HostDevice => ({
  name: 'a',
  claimName: 'a',
  requestName: 'gpu',
  ...over,
});

const requests = (reqs: VirtualMachineResourceClaimRequest[], vmi?: RunningVmi): AdmissionCause[] => {
  const vm = validVm((v) => (v.status = { resourceClaimRequests: reqs }));
  return validateVm(vm, vm, { ...ctx, ...(vmi !== undefined && { runningVmi: vmi }) });
};

describe('validateVm: resource claim requests (Deckhouse fork)', () => {
  it.each<[string, VirtualMachineResourceClaimRequest[], AdmissionCause[]]>([
    ['an add and a remove', [add('a'), remove('b')], []],
    [
      'an add and a remove in one request',
      [{ ...add('a'), ...remove('a') }],
      [
        inv(
          F,
          'ResourceClaimRequests require either addResourceClaimOptions or removeResourceClaimOptions to be set, not both',
        ),
      ],
    ],
    [
      'an empty request',
      [{}],
      [
        inv(
          F,
          'ResourceClaimRequests require one of either addResourceClaimOptions or removeResourceClaimOptions to be set',
        ),
      ],
    ],
    ['the same add twice', [add('a'), add('a')], [inv(F, 'AddResourceClaim request for [a] aleady exists')]],
    [
      'the same remove twice',
      [remove('a'), remove('a')],
      [inv(F, 'RemoveResourceClaim request for [a] aleady exists')],
    ],
    [
      'no host device',
      [{ addResourceClaimOptions: { name: 'a', hostDevice: raw(undefined), resourceClaim: { name: 'a' } } }],
      [inv(F, 'AddResourceClaim request for [a] requires the hostDevice field to be set.')],
    ],
    [
      'a host device with no name',
      [add('a', device({ name: '' }))],
      [inv(F, 'AddResourceClaim request for [a] requires the hostDevice.name field to be set.')],
    ],
    [
      'a device-plugin host device',
      [add('a', device({ deviceName: 'vendor.com/gpu' }))],
      [inv(F, 'AddResourceClaim request for [a] requires the hostDevice.deviceName field to be empty.')],
    ],
    [
      'a tagged host device',
      [add('a', device({ tag: 'nic' }))],
      [inv(F, 'AddResourceClaim request for [a] requires the hostDevice.tag field to be empty.')],
    ],
    [
      'a host device with no claim at all',
      [add('a', { name: 'a' })],
      [inv(F, 'AddResourceClaim request for [a] requires the claimRequest field to be set.')],
    ],
    [
      'a host device with no claimName',
      [add('a', { name: 'a', requestName: 'gpu' })],
      [inv(F, 'AddResourceClaim request for [a] requires the claimRequest.claimName field to be set.')],
    ],
    [
      'a host device with an empty requestName',
      [add('a', device({ requestName: '' }))],
      [inv(F, 'AddResourceClaim request for [a] requires the claimRequest.requestName field to be set.')],
    ],
  ])('%s', (_name, reqs, expected) => {
    expect(requests(reqs)).toEqual(expected);
  });

  it('refuses an add whose claim differs from the template’s claim of that name', () => {
    const vm = validVm((v) => {
      v.spec.template.spec.resourceClaims = [{ name: 'a', resourceClaimName: 'fixed' }];
      v.status = { resourceClaimRequests: [add('a')] };
    });
    expect(validateVm(vm, vm, ctx)).toEqual([
      inv(
        F,
        'AddResourceClaim request for [a] conflicts with an existing resource claim of the same name on the vmi template.',
      ),
    ]);
  });

  it('checks the template with the requests applied', () => {
    // Without the HostDevices gate the template with the host device added is refused.
    const vm = validVm((v) => (v.status = { resourceClaimRequests: [add('a')] }));
    const gates = [...ctx.featureGates].filter((g) => g !== 'HostDevices');
    expect(validateVm(vm, vm, { ...ctx, ...ctxWith(gates) })).toEqual([
      inv('spec.template.spec.HostDevices', 'Host Devices feature gate is not enabled in kubevirt-config'),
    ]);
  });

  const vmiWith = (migrating: boolean): RunningVmi => {
    const spec = validSpec();
    spec.resourceClaims = [{ name: 'a', resourceClaimTemplateName: 'other-template', hotpluggable: true }];
    spec.domain.devices.hostDevices = [{ name: 'a', claimName: 'a', requestName: 'gpu' }];
    return { spec, migrating };
  };

  it.each<[string, VirtualMachineResourceClaimRequest[], RunningVmi, AdmissionCause[]]>([
    ['an add the running VMI already has', [add('a', undefined, 'other-template')], vmiWith(false), []],
    [
      'an add that clashes with a claim of the running VMI',
      [add('a')],
      vmiWith(false),
      [
        inv(
          F,
          'AddResourceClaim request for [a] conflicts with an existing resource claim of the same name on currently running vmi',
        ),
      ],
    ],
    [
      'a request while the VMI migrates',
      [add('b')],
      vmiWith(true),
      [ns('spec', 'Cannot handle resource claim requests while VMI migration is in progress')],
    ],
  ])('%s', (_name, reqs, vmi, expected) => {
    expect(requests(reqs, vmi)).toEqual(expected);
  });
});
