import { describe, expect, it } from '@jest/globals';
import type {
  HostDevice,
  PodResourceClaim,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineResourceClaimRequest,
} from '../../../kubevirt/index.ts';
import type { SpecOption } from '../../../kubevirt/testing/builders.ts';
import { onSpec, vm, vmi, withPhase } from '../../../kubevirt/testing/objects.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from '../../../kubevirt/testing/resource-claims.ts';
import { VMI_NOT_RUNNING } from '../messages.ts';
import type { JsonPatchOp, VmPlan } from '../patch-plan.ts';
import { conflict, notFound, type Refusal } from '../refusal.ts';
import { planVmiResourceClaim, planVmResourceClaim } from './resource-claims.ts';
import { plan } from '../testing/volumes.ts';

const hot = (name: string): SpecOption[] => [
  withResourceClaim(templateClaim(name)),
  withHostDevice(draDevice(name)),
];
const running = (...opts: SpecOption[]): VirtualMachineInstance => vmi(withPhase('Running'), onSpec(...opts));
const vmiConflict = (text: string): Refusal => conflict('virtualmachineinstance', 'testvm', text);
/** A claim of a ResourceClaim that also names the template gpu1 comes from. */
const byClaimName: PodResourceClaim = {
  name: 'gpu0',
  resourceClaimName: 'rc',
  resourceClaimTemplateName: 'gpu1-template',
};
/** test of the claims and host devices as read, then each set to its new value (add when it was empty). */
const specPatch = (
  before: [PodResourceClaim[] | null, HostDevice[] | null],
  after: [PodResourceClaim[], HostDevice[]],
): JsonPatchOp[] => {
  const op = (old: unknown[] | null): 'add' | 'replace' =>
    old !== null && old.length > 0 ? 'replace' : 'add';
  return [
    { op: 'test', path: '/spec/resourceClaims', value: before[0] },
    { op: 'test', path: '/spec/domain/devices/hostDevices', value: before[1] },
    { op: op(before[0]), path: '/spec/resourceClaims', value: after[0] },
    { op: op(before[1]), path: '/spec/domain/devices/hostDevices', value: after[1] },
  ];
};
const vmiPlan = (patch: JsonPatchOp[], dryRun?: string[]): VmPlan =>
  plan('vmi', 'unable to patch vmi', patch, dryRun);

describe('planVmiResourceClaim', () => {
  it.each<[string, VirtualMachineInstance | undefined, VirtualMachineResourceClaimRequest, VmPlan | Refusal]>(
    [
      ['no VMI', undefined, removeClaim('gpu1'), notFound('virtualmachineinstance', 'testvm')],
      ['not running', vmi(withPhase('Scheduled')), addClaim('gpu1'), vmiConflict(VMI_NOT_RUNNING)],
      [
        'an add that fits: appended to the claims and host devices',
        running(...hot('gpu0')),
        addClaim('gpu1'),
        vmiPlan(
          specPatch(
            [[templateClaim('gpu0')], [draDevice('gpu0')]],
            [
              [templateClaim('gpu0'), templateClaim('gpu1')],
              [draDevice('gpu0'), draDevice('gpu1')],
            ],
          ),
        ),
      ],
      [
        'an add to a VMI without claims or host devices: the lists are added, dryRun kept',
        running(),
        addClaim('gpu1', { dryRun: ['All'] }),
        vmiPlan(specPatch([null, null], [[templateClaim('gpu1')], [draDevice('gpu1')]]), ['All']),
      ],
      [
        'a dryRun not starting with All is not passed on',
        running(),
        addClaim('gpu1', { dryRun: ['None'] }),
        vmiPlan(specPatch([null, null], [[templateClaim('gpu1')], [draDevice('gpu1')]])),
      ],
      [
        'a claim of that name',
        running(...hot('gpu1')),
        addClaim('gpu1'),
        vmiConflict('Unable to add ResourceClaim [gpu1] because ResourceClaim with that name already exists'),
      ],
      [
        'a claim of the same ResourceClaim',
        running(withResourceClaim({ name: 'gpu0', resourceClaimName: 'rc' })),
        addClaim('gpu1', { claim: { resourceClaimName: 'rc' } }),
        vmiConflict('Unable to add ResourceClaimName [gpu1] because it already exists'),
      ],
      [
        'a claim of the same template',
        running(withResourceClaim({ name: 'gpu0', resourceClaimTemplateName: 'gpu1-template' })),
        addClaim('gpu1'),
        vmiConflict('Unable to add ResourceClaimTemplateName [gpu1] because it already exists'),
      ],
      [
        'a claim naming a ResourceClaim is not compared by its template',
        running(withResourceClaim(byClaimName)),
        addClaim('gpu1'),
        vmiPlan(
          specPatch([[byClaimName], null], [[byClaimName, templateClaim('gpu1')], [draDevice('gpu1')]]),
        ),
      ],
      [
        'remove: not there',
        running(...hot('gpu0')),
        removeClaim('gpu1'),
        vmiConflict('Unable to remove ResourceClaim [gpu1] because it does not exist'),
      ],
      [
        'remove: not hotpluggable',
        running(withResourceClaim(templateClaim('gpu1', false)), withHostDevice(draDevice('gpu1'))),
        removeClaim('gpu1'),
        vmiConflict('Unable to remove ResourceClaim [gpu1] because it is not hotpluggable'),
      ],
      [
        'remove a hotplugged claim: its claim and host device dropped, dryRun kept',
        running(...hot('gpu0'), ...hot('gpu1')),
        removeClaim('gpu1', ['All']),
        vmiPlan(
          specPatch(
            [
              [templateClaim('gpu0'), templateClaim('gpu1')],
              [draDevice('gpu0'), draDevice('gpu1')],
            ],
            [[templateClaim('gpu0')], [draDevice('gpu0')]],
          ),
          ['All'],
        ),
      ],
      [
        'remove the last claim: both lists replaced by empty ones',
        running(...hot('gpu1')),
        removeClaim('gpu1'),
        vmiPlan(specPatch([[templateClaim('gpu1')], [draDevice('gpu1')]], [[], []])),
      ],
    ],
  )('%s', (_name, v, request, want) => {
    expect(planVmiResourceClaim({ name: 'testvm', object: v, request })).toEqual(want);
  });
});

const withRequests =
  (...reqs: VirtualMachineResourceClaimRequest[]) =>
  (v: VirtualMachine): void => {
    v.status = { ...v.status, resourceClaimRequests: reqs };
  };
const vmConflict = (text: string): Refusal => conflict('virtualmachine', 'testvm', text);
const statusPatch = (
  old: VirtualMachineResourceClaimRequest[] | null,
  next: VirtualMachineResourceClaimRequest[],
): JsonPatchOp[] => [
  { op: 'test', path: '/status/resourceClaimRequests', value: old },
  {
    op: old !== null && old.length > 0 ? 'replace' : 'add',
    path: '/status/resourceClaimRequests',
    value: next,
  },
];
const statusPlan = (patch: JsonPatchOp[], dryRun?: string[]): VmPlan =>
  plan('vm/status', 'unable to patch vm status', patch, dryRun);

describe('planVmResourceClaim', () => {
  it.each<[string, VirtualMachine | undefined, VirtualMachineResourceClaimRequest, VmPlan | Refusal]>([
    ['no VM', undefined, removeClaim('gpu1'), notFound('virtualmachine', 'testvm')],
    [
      'a request on the status, dryRun kept',
      vm((v) => (v.status = { printableStatus: 'Running' })),
      addClaim('gpu1', { dryRun: ['All'] }),
      statusPlan(statusPatch(null, [addClaim('gpu1', { dryRun: ['All'] })]), ['All']),
    ],
    [
      'appended to pending requests',
      vm(withRequests(removeClaim('gpu0')), onSpec(...hot('gpu0'))),
      addClaim('gpu1'),
      statusPlan(statusPatch([removeClaim('gpu0')], [removeClaim('gpu0'), addClaim('gpu1')])),
    ],
    [
      'an add of that name pending',
      vm(withRequests(addClaim('gpu1'))),
      addClaim('gpu1'),
      vmConflict('add resource claim request for resource claim [gpu1] already exists'),
    ],
    [
      'an add while its remove is pending',
      vm(withRequests(removeClaim('gpu1'))),
      addClaim('gpu1'),
      vmConflict(
        'unable to add resource claim since a remove resource claim request for resource claim [gpu1] already exists and is still being processed',
      ),
    ],
    [
      'a remove drops the pending add of that name',
      vm(withRequests(addClaim('gpu1'), addClaim('gpu2')), onSpec(...hot('gpu1'))),
      removeClaim('gpu1'),
      statusPlan(statusPatch([addClaim('gpu1'), addClaim('gpu2')], [addClaim('gpu2'), removeClaim('gpu1')])),
    ],
    [
      'a second remove',
      vm(withRequests(removeClaim('gpu1')), onSpec(...hot('gpu1'))),
      removeClaim('gpu1'),
      vmConflict(
        'a remove resource claim request for resource claim [gpu1] already exists and is still being processed',
      ),
    ],
    [
      'checked against the template first',
      vm(withRequests(addClaim('gpu1')), onSpec(...hot('gpu1'))),
      addClaim('gpu1'),
      vmConflict('Unable to add ResourceClaim [gpu1] because ResourceClaim with that name already exists'),
    ],
    [
      'a remove of a claim only requested, not in the template',
      vm(withRequests(addClaim('gpu1'))),
      removeClaim('gpu1'),
      vmConflict('Unable to remove ResourceClaim [gpu1] because it does not exist'),
    ],
  ])('%s', (_name, v, request, want) => {
    expect(planVmResourceClaim({ name: 'testvm', object: v, request })).toEqual(want);
  });
});
