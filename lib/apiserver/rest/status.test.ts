import { describe, expect, it } from '@jest/globals';
import {
  asPlainText500,
  badRequest,
  conflict,
  forbidden,
  internalError,
  isRefusal,
  notFound,
  unauthorized,
  unmarshalFailed,
  type Refusal,
} from './refusal.ts';
import { statusOf, type SubresourceStatus } from './status.ts';

const base = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' } as const;
const vmDetails = { name: 'vm1', group: 'kubevirt.io', kind: 'virtualmachine' };

describe('refusals and their Status', () => {
  it.each<[string, Refusal, SubresourceStatus]>([
    [
      'bad request: no details',
      badRequest('AddVolumeOptions requires name to be set'),
      { ...base, message: 'AddVolumeOptions requires name to be set', reason: 'BadRequest', code: 400 },
    ],
    [
      'conflict on a VM',
      conflict('virtualmachine', 'vm1', 'VM is already running'),
      {
        ...base,
        message: 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm1": VM is already running',
        reason: 'Conflict',
        details: vmDetails,
        code: 409,
      },
    ],
    [
      'conflict on a VMI',
      conflict('virtualmachineinstance', 'vmi1', 'VMI is not running'),
      {
        ...base,
        message:
          'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vmi1": VMI is not running',
        reason: 'Conflict',
        details: { name: 'vmi1', group: 'kubevirt.io', kind: 'virtualmachineinstance' },
        code: 409,
      },
    ],
    [
      'forbidden',
      forbidden(
        'virtualmachineinstance',
        'vmi1',
        'Pausing VMIs with LivenessProbe is currently not supported',
      ),
      {
        ...base,
        message:
          'virtualmachineinstance.kubevirt.io "vmi1" is forbidden: Pausing VMIs with LivenessProbe is currently not supported',
        reason: 'Forbidden',
        details: { name: 'vmi1', group: 'kubevirt.io', kind: 'virtualmachineinstance' },
        code: 403,
      },
    ],
    [
      'not found',
      notFound('virtualmachine', 'vm1'),
      {
        ...base,
        message: 'virtualmachine.kubevirt.io "vm1" not found',
        reason: 'NotFound',
        details: vmDetails,
        code: 404,
      },
    ],
    [
      'internal error: the cause carries the text',
      internalError('unable to complete request: stop/start already underway'),
      {
        ...base,
        message: 'Internal error occurred: unable to complete request: stop/start already underway',
        reason: 'InternalError',
        details: { causes: [{ message: 'unable to complete request: stop/start already underway' }] },
        code: 500,
      },
    ],
    [
      'unmarshal failure',
      unmarshalFailed('json: cannot unmarshal string into Go value of type v1.StopOptions'),
      {
        ...base,
        message:
          'Can not unmarshal Request body to struct, error: json: cannot unmarshal string into Go value of type v1.StopOptions',
        reason: 'BadRequest',
        code: 400,
      },
    ],
    [
      'empty details are dropped',
      { status: 422, reason: 'Invalid', message: 'x', details: { name: '', causes: [] } },
      { ...base, message: 'x', reason: 'Invalid', code: 422 },
    ],
    [
      'field causes kept under their wire names',
      {
        status: 422,
        reason: 'Invalid',
        message: 'bad',
        details: { name: 'vm1', causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec.x' }] },
      },
      {
        ...base,
        message: 'bad',
        reason: 'Invalid',
        details: { name: 'vm1', causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec.x' }] },
        code: 422,
      },
    ],
  ])('%s', (_name, refusal, status) => {
    expect(statusOf(refusal)).toEqual(status);
    expect(JSON.stringify(Object.keys(statusOf(refusal)))).toBe(JSON.stringify(Object.keys(status)));
  });

  it.each<[string, Refusal, Refusal]>([
    [
      'a conflict answered as text',
      asPlainText500(conflict('virtualmachineinstance', 'v', 'VMI is not running')),
      {
        status: 500,
        reason: 'InternalError',
        message:
          'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "v": VMI is not running',
        plainText: true,
      },
    ],
    [
      'the authorizer',
      unauthorized('request is not authenticated'),
      { status: 401, reason: 'Unauthorized', message: 'request is not authenticated', plainText: true },
    ],
  ])('%s', (_name, got, want) => {
    expect(got).toEqual(want);
  });

  it.each<[unknown, boolean]>([
    [badRequest('x'), true],
    [{ status: 202 }, false],
    [{ status: 400, reason: 'BadRequest' }, false],
    [null, false],
    ['BadRequest', false],
  ])('isRefusal(%j) is %p', (v, want) => {
    expect(isRefusal(v)).toBe(want);
  });
});
