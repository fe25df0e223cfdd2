import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineStatus } from '../../../kubevirt/index.ts';
import {
  vm,
  withStartFailure,
  withStartRequest,
  withStopRequest,
  T0,
} from '../../../kubevirt/testing/objects.ts';
import type { JsonPatchOp } from '../patch-plan.ts';
import { internalError, type Refusal } from '../refusal.ts';
import { CHANGE_UNDERWAY, changeRequestPatch, isEmptyStatus, runningPatch } from './state-change.ts';

const start = { action: 'Start' } as const;
const stop = { action: 'Stop', uid: 'u1' } as const;
const withStatus =
  (status: VirtualMachineStatus) =>
  (v: VirtualMachine): void => {
    v.status = status;
  };

describe('changeRequestPatch', () => {
  it.each<[string, VirtualMachine, readonly (typeof start | typeof stop)[], JsonPatchOp[] | Refusal]>([
    [
      'no status: add it whole',
      vm(),
      [start],
      [{ op: 'add', path: '/status', value: { stateChangeRequests: [start] } }],
    ],
    [
      'a zero status counts as none',
      vm(withStatus({ created: false, ready: false, volumeRequests: [] })),
      [stop, start],
      [{ op: 'add', path: '/status', value: { stateChangeRequests: [stop, start] } }],
    ],
    [
      'a status with no requests: test null, add',
      vm(withStatus({ printableStatus: 'Stopped' })),
      [start],
      [
        { op: 'test', path: '/status/stateChangeRequests', value: null },
        { op: 'add', path: '/status/stateChangeRequests', value: [start] },
      ],
    ],
    [
      'an empty list: test it, add',
      vm(withStatus({ printableStatus: 'Stopped', stateChangeRequests: [] })),
      [start],
      [
        { op: 'test', path: '/status/stateChangeRequests', value: [] },
        { op: 'add', path: '/status/stateChangeRequests', value: [start] },
      ],
    ],
    [
      'a lone stop replaces pending requests',
      vm(withStartRequest()),
      [stop],
      [
        { op: 'test', path: '/status/stateChangeRequests', value: [{ action: 'Start' }] },
        { op: 'replace', path: '/status/stateChangeRequests', value: [stop] },
      ],
    ],
    ['a start while one is pending', vm(withStopRequest()), [start], internalError(CHANGE_UNDERWAY)],
    ['a restart while one is pending', vm(withStartRequest()), [stop, start], internalError(CHANGE_UNDERWAY)],
    [
      'a start failure on record is removed',
      vm(withStartFailure(2, T0)),
      [start],
      [
        { op: 'test', path: '/status/stateChangeRequests', value: null },
        { op: 'add', path: '/status/stateChangeRequests', value: [start] },
        { op: 'remove', path: '/status/startFailure' },
      ],
    ],
  ])('%s', (_name, v, changes, want) => {
    expect(changeRequestPatch(v, changes)).toEqual(want);
  });
});

describe('isEmptyStatus', () => {
  it.each<[string, VirtualMachineStatus | undefined, boolean]>([
    ['absent', undefined, true],
    ['no fields', {}, true],
    [
      'zero values and empty lists',
      { created: false, observedGeneration: 0, conditions: [], startFailure: null },
      true,
    ],
    ['a printable status', { printableStatus: 'Stopped' }, false],
    ['a request', { stateChangeRequests: [{ action: 'Start' }] }, false],
    ['an empty pointer string is set', { snapshotInProgress: '' }, false],
    ['a start failure object', { startFailure: {} }, false],
  ])('%s', (_name, status, want) => {
    expect(isEmptyStatus(status)).toBe(want);
  });
});

describe('runningPatch', () => {
  it.each<[string, VirtualMachine['spec'], boolean, JsonPatchOp[]]>([
    [
      'run strategy to Always',
      { runStrategy: 'Halted', template: { spec: { domain: { devices: {} } } } },
      true,
      [
        { op: 'test', path: '/spec/runStrategy', value: 'Halted' },
        { op: 'replace', path: '/spec/runStrategy', value: 'Always' },
      ],
    ],
    [
      'run strategy to Halted',
      { runStrategy: 'Once', template: { spec: { domain: { devices: {} } } } },
      false,
      [
        { op: 'test', path: '/spec/runStrategy', value: 'Once' },
        { op: 'replace', path: '/spec/runStrategy', value: 'Halted' },
      ],
    ],
    [
      'deprecated running',
      { running: true, template: { spec: { domain: { devices: {} } } } },
      false,
      [
        { op: 'test', path: '/spec/running', value: true },
        { op: 'replace', path: '/spec/running', value: false },
      ],
    ],
    [
      'neither set: running tested as null',
      { template: { spec: { domain: { devices: {} } } } },
      true,
      [
        { op: 'test', path: '/spec/running', value: null },
        { op: 'replace', path: '/spec/running', value: true },
      ],
    ],
  ])('%s', (_name, spec, running, want) => {
    expect(runningPatch({ spec }, running)).toEqual(want);
  });
});
