import { describe, expect, it } from '@jest/globals';
import { patchFailure, patchPlan, type PatchError, type PatchErrorRule } from './patch-plan.ts';
import { conflict, internalError, type Refusal } from './refusal.ts';

const TEST_FAILED =
  'the server rejected our request due to an error in our request: jsonpatch test operation does not apply: doc is missing path';
const invalid: PatchError = {
  message: 'VirtualMachineInstance.kubevirt.io "v" is invalid: spec.volumes[1].name: Duplicate value',
  status: {
    code: 422,
    reason: 'Invalid',
    message: 'VirtualMachineInstance.kubevirt.io "v" is invalid: spec.volumes[1].name: Duplicate value',
    details: { name: 'v', group: 'kubevirt.io', kind: 'VirtualMachineInstance' },
  },
};

describe('patchFailure', () => {
  it.each<[string, PatchErrorRule, PatchError, Refusal]>([
    ['internal', { kind: 'internal' }, { message: 'etcd down' }, internalError('etcd down')],
    [
      'a failed test is a conflict',
      { kind: 'test-conflict', resource: 'virtualmachine' },
      { message: TEST_FAILED },
      conflict('virtualmachine', 'v', TEST_FAILED),
    ],
    [
      'other errors are internal',
      { kind: 'test-conflict', resource: 'virtualmachine' },
      { message: 'timeout' },
      internalError('timeout'),
    ],
    [
      'Invalid passes through',
      { kind: 'invalid-or-internal', prefix: 'unable to patch vmi' },
      invalid,
      {
        status: 422,
        reason: 'Invalid',
        message: invalid.message,
        details: { name: 'v', group: 'kubevirt.io', kind: 'VirtualMachineInstance' },
      },
    ],
    [
      'anything else is wrapped',
      { kind: 'invalid-or-internal', prefix: 'unable to patch vm status' },
      { message: 'conflict', status: { code: 409, reason: 'Conflict' } },
      internalError('unable to patch vm status: conflict'),
    ],
  ])('%s', (_name, onError, err, want) => {
    expect(patchFailure(patchPlan('vm', [], onError, undefined), 'v', err)).toEqual(want);
  });

  it.each<[string[] | undefined, boolean]>([
    [undefined, false],
    [[], false],
    [['All'], true],
  ])('dryRun %j is passed: %p', (dryRun, passed) => {
    expect('dryRun' in patchPlan('vmi', [], { kind: 'internal' }, dryRun)).toBe(passed);
  });
});
