import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineResourceClaimRequest } from '../../../kubevirt/index.ts';
import { addClaim, removeClaim } from '../../../kubevirt/testing/resource-claims.ts';
import { badRequest, unmarshalFailed, type Refusal } from '../refusal.ts';
import {
  addResourceClaimRequest,
  removeResourceClaimRequest,
  RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED,
  resourceClaimDryRun,
} from './resource-claim-options.ts';
import { NO_BODY, type FeatureGates } from '../volumes/volume-options.ts';

const dra: FeatureGates = new Set(['HotplugHostDevicesWithDRA']);
const volumesOnly: FeatureGates = new Set(['HotplugVolumes', 'HostDevicesWithDRA']);
const hostDevice = { name: 'gpu1', claimName: 'gpu1', requestName: 'gpu' };
const resourceClaim = { resourceClaimTemplateName: 'gpu1-template' };

describe('addResourceClaimRequest', () => {
  it.each<[string, unknown, FeatureGates, VirtualMachineResourceClaimRequest | Refusal]>([
    [
      'no HotplugHostDevicesWithDRA gate',
      { name: 'gpu1' },
      volumesOnly,
      badRequest(RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED),
    ],
    ['no body at all', undefined, dra, badRequest(NO_BODY)],
    ['an empty body', null, dra, badRequest('AddResourceClaimOptions requires name to be set')],
    [
      'an empty name',
      { name: '', hostDevice, resourceClaim },
      dra,
      badRequest('AddResourceClaimOptions requires name to be set'),
    ],
    [
      'no host device',
      { name: 'gpu1', resourceClaim },
      dra,
      badRequest('AddResourceClaimOptions requires hostDevice to not be nil'),
    ],
    [
      'a null host device',
      { name: 'gpu1', hostDevice: null, resourceClaim },
      dra,
      badRequest('AddResourceClaimOptions requires hostDevice to not be nil'),
    ],
    [
      'no resource claim',
      { name: 'gpu1', hostDevice },
      dra,
      badRequest('AddResourceClaimOptions requires resourceClaim to not be nil'),
    ],
    [
      'a host device that does not decode',
      { name: 'gpu1', hostDevice: [] },
      dra,
      unmarshalFailed(
        'json: cannot unmarshal array into Go struct field AddResourceClaimOptions.hostDevice of type v1.HostDevice',
      ),
    ],
    [
      'a claim name that does not decode',
      { name: 'gpu1', hostDevice: { claimName: 1 } },
      dra,
      unmarshalFailed(
        'json: cannot unmarshal number into Go struct field HostDevice.hostDevice.claimName of type string',
      ),
    ],
    [
      'hotpluggable that does not decode',
      { name: 'gpu1', hostDevice, resourceClaim: { hotpluggable: 'yes' } },
      dra,
      unmarshalFailed(
        'json: cannot unmarshal string into Go struct field ResourceClaim.resourceClaim.hotpluggable of type bool',
      ),
    ],
    [
      'what virtualization-api sends: the claim named and hotpluggable, dryRun kept',
      { name: 'gpu1', hostDevice, resourceClaim, dryRun: ['All'] },
      dra,
      addClaim('gpu1', { dryRun: ['All'] }),
    ],
    [
      'the host device and the claim renamed, hotpluggable forced',
      {
        name: 'gpu1',
        hostDevice: { ...hostDevice, name: 'other' },
        resourceClaim: { ...resourceClaim, name: 'other', hotpluggable: false },
      },
      dra,
      addClaim('gpu1'),
    ],
    [
      'a claimName other than the claim is kept as sent',
      { name: 'gpu1', hostDevice: { ...hostDevice, claimName: 'shared' }, resourceClaim },
      dra,
      {
        addResourceClaimOptions: {
          name: 'gpu1',
          hostDevice: { ...hostDevice, claimName: 'shared' },
          resourceClaim: { name: 'gpu1', resourceClaimTemplateName: 'gpu1-template', hotpluggable: true },
        },
      },
    ],
    [
      'empty host device and claim pass, named',
      { name: 'gpu1', hostDevice: {}, resourceClaim: {} },
      dra,
      {
        addResourceClaimOptions: {
          name: 'gpu1',
          hostDevice: { name: 'gpu1' },
          resourceClaim: { name: 'gpu1', hotpluggable: true },
        },
      },
    ],
    [
      'unknown fields are dropped',
      { name: 'gpu1', hostDevice, resourceClaim, volumeSource: {} },
      dra,
      addClaim('gpu1'),
    ],
  ])('%s', (_name, body, gates, want) => {
    expect(addResourceClaimRequest(body, gates)).toEqual(want);
  });
});

describe('removeResourceClaimRequest', () => {
  it.each<[string, unknown, FeatureGates, VirtualMachineResourceClaimRequest | Refusal]>([
    [
      'no HotplugHostDevicesWithDRA gate',
      { name: 'gpu1' },
      volumesOnly,
      badRequest(RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED),
    ],
    ['no body at all', undefined, dra, badRequest(NO_BODY)],
    ['no name', {}, dra, badRequest('RemoveResourceClaimOptions requires name to be set')],
    [
      'a name that does not decode',
      { name: ['gpu1'] },
      dra,
      unmarshalFailed(
        'json: cannot unmarshal array into Go struct field RemoveResourceClaimOptions.name of type string',
      ),
    ],
    ['a name', { name: 'gpu1', dryRun: ['All'] }, dra, removeClaim('gpu1', ['All'])],
  ])('%s', (_name, body, gates, want) => {
    expect(removeResourceClaimRequest(body, gates)).toEqual(want);
  });
});

describe('resourceClaimDryRun', () => {
  it.each<[string, VirtualMachineResourceClaimRequest, readonly string[] | undefined]>([
    ['none', removeClaim('gpu1'), undefined],
    ['All on a remove', removeClaim('gpu1', ['All']), ['All']],
    ['All on an add', addClaim('gpu1', { dryRun: ['All'] }), ['All']],
    ['not starting with All', removeClaim('gpu1', ['Some', 'All']), undefined],
    ['empty', removeClaim('gpu1', []), undefined],
  ])('%s', (_name, req, want) => {
    expect(resourceClaimDryRun(req)).toEqual(want);
  });
});
