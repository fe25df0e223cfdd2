import { describe, expect, it } from '@jest/globals';
import { applyResourceClaimRequest, applyResourceClaimRequests } from './resource-claim-requests.ts';
import { newSpec, type SpecOption } from './testing/builders.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from './testing/resource-claims.ts';
import type { VirtualMachineResourceClaimRequest } from './v1/vm.ts';
import type { VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';

const withGpu =
  (name: string, claimName: string): SpecOption =>
  (spec) => {
    (spec.domain.devices.gpus ??= []).push({ name, claimName, requestName: 'gpu' });
  };
const hot = (name: string): SpecOption[] => [
  withResourceClaim(templateClaim(name)),
  withHostDevice(draDevice(name)),
];

describe('applyResourceClaimRequest', () => {
  it.each<[string, SpecOption[], VirtualMachineResourceClaimRequest, SpecOption[]]>([
    ['an add on an empty spec', [], addClaim('gpu1'), hot('gpu1')],
    ['an add appends to what is there', hot('gpu0'), addClaim('gpu1'), [...hot('gpu0'), ...hot('gpu1')]],
    [
      'an add marks the claim hotpluggable',
      [],
      addClaim('gpu1', { claim: { hotpluggable: false } }),
      hot('gpu1'),
    ],
    [
      'an add names the host device after the request',
      [],
      {
        addResourceClaimOptions: {
          name: 'gpu1',
          hostDevice: { name: 'other', claimName: 'gpu1', requestName: 'gpu' },
          resourceClaim: templateClaim('gpu1'),
        },
      },
      hot('gpu1'),
    ],
    ['an add of a host device that is there: nothing', hot('gpu1'), addClaim('gpu1'), hot('gpu1')],
    [
      'an add whose claim is there: only the host device',
      [withResourceClaim(templateClaim('gpu1', false))],
      addClaim('gpu1'),
      [withResourceClaim(templateClaim('gpu1', false)), withHostDevice(draDevice('gpu1'))],
    ],
    [
      'a remove drops the host device and its claim',
      [...hot('gpu0'), ...hot('gpu1')],
      removeClaim('gpu1'),
      hot('gpu0'),
    ],
    [
      'a remove keeps a claim another host device uses',
      [...hot('gpu1'), withHostDevice(draDevice('gpu1b', 'gpu1'))],
      removeClaim('gpu1'),
      [withResourceClaim(templateClaim('gpu1')), withHostDevice(draDevice('gpu1b', 'gpu1'))],
    ],
    [
      'a remove keeps a claim a GPU uses',
      [...hot('gpu1'), withGpu('vga', 'gpu1')],
      removeClaim('gpu1'),
      [
        withResourceClaim(templateClaim('gpu1')),
        withGpu('vga', 'gpu1'),
        (s) => (s.domain.devices.hostDevices = []),
      ],
    ],
    [
      'a remove drops the claim the host device names',
      [withResourceClaim(templateClaim('shared')), withHostDevice(draDevice('gpu1', 'shared'))],
      removeClaim('gpu1'),
      [(s) => ((s.resourceClaims = []), (s.domain.devices.hostDevices = []))],
    ],
    [
      'a remove of a claim left without its host device',
      [...hot('gpu0'), withResourceClaim(templateClaim('gpu1'))],
      removeClaim('gpu1'),
      hot('gpu0'),
    ],
    ['a remove of nothing there: nothing', hot('gpu0'), removeClaim('gpu1'), hot('gpu0')],
    ['neither add nor remove: nothing', hot('gpu0'), {}, hot('gpu0')],
  ])('%s', (_name, before, req, after) => {
    const spec = newSpec(...before);
    const copy = structuredClone(spec);
    expect(applyResourceClaimRequest(spec, req)).toEqual(newSpec(...after));
    expect(spec).toEqual(copy);
  });
});

describe('applyResourceClaimRequests', () => {
  it('applies them in order, a remove after an add undoing it', () => {
    const spec: VirtualMachineInstanceSpec = newSpec(...hot('gpu0'));
    const reqs = [addClaim('gpu1'), addClaim('gpu2'), removeClaim('gpu1')];
    expect(applyResourceClaimRequests(spec, reqs)).toEqual(newSpec(...hot('gpu0'), ...hot('gpu2')));
  });

  it('gives a copy without requests', () => {
    const spec = newSpec(...hot('gpu0'));
    const out = applyResourceClaimRequests(spec, undefined);
    expect(out).toEqual(spec);
    expect(out).not.toBe(spec);
  });
});
