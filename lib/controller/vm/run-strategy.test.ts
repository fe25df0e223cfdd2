import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  T0,
  vm,
  vmDeleting,
  vmi,
  vmiDeleting,
  withoutVmFinalizer,
  withPhase,
  withStartFailure,
  withStartRequest,
  withStatusStrategy,
  withStopRequest,
  withStrategy,
  withVmCondition,
  withVmiUid,
} from '../../kubevirt/testing/objects.ts';
import { decideRun, type RunDecision } from './run-strategy.ts';

type Row = [string, VirtualMachine, VirtualMachineInstance | undefined, Partial<RunDecision>];

const create = { createVmi: true, deleteVmi: false, reason: 'start' };
const del = (reason: string): Partial<RunDecision> => ({ createVmi: false, deleteVmi: true, reason });
const nothing = {
  createVmi: false,
  deleteVmi: false,
  addStartRequest: false,
  switchToAlways: false,
  reason: 'none',
};
const running = vmi(withPhase('Running', 'Scheduled'));

const rows: Row[] = [
  // Always
  ['Always, no VMI: start', vm(), undefined, create],
  ['Always, running VMI: nothing', vm(), running, nothing],
  ['Always, Failed VMI: delete to restart', vm(), vmi(withPhase('Failed')), del('restart')],
  ['Always, Succeeded VMI: delete to restart', vm(), vmi(withPhase('Succeeded')), del('restart')],
  [
    'Always, stop request for the VMI: delete (restart)',
    vm(withStopRequest()),
    running,
    del('restart-request'),
  ],
  ['Always, stop request for another VMI: nothing', vm(withStopRequest('other')), running, nothing],
  [
    'Always, final VMI already deleting: wait',
    vm(),
    vmi(withPhase('Failed'), vmiDeleting),
    { deleteVmi: false, reason: 'restart-pending' },
  ],
  [
    'Always, no VMI, backoff running: requeue after it',
    vm(withStartFailure(2, T0 + 42_500)),
    undefined,
    { createVmi: false, reason: 'backoff', requeueAfterMs: 42_000 },
  ],
  ['Always, no VMI, backoff over: start', vm(withStartFailure(2, T0 - 1000)), undefined, create],
  [
    'Always, manual recovery required: no start',
    vm(withVmCondition('ManualRecoveryRequired', 'True')),
    undefined,
    { createVmi: false, reason: 'manual-recovery-required' },
  ],
  // RerunOnFailure
  [
    'RerunOnFailure, first start (strategy changed): start',
    vm(withStrategy('RerunOnFailure')),
    undefined,
    create,
  ],
  [
    'RerunOnFailure, no VMI, strategy already acted on: nothing',
    vm(withStrategy('RerunOnFailure'), withStatusStrategy('RerunOnFailure')),
    undefined,
    nothing,
  ],
  [
    'RerunOnFailure, no VMI, start request: start',
    vm(withStrategy('RerunOnFailure'), withStatusStrategy('RerunOnFailure'), withStartRequest()),
    undefined,
    create,
  ],
  [
    'RerunOnFailure, Failed VMI: delete and queue a start',
    vm(withStrategy('RerunOnFailure')),
    vmi(withPhase('Failed')),
    { ...del('restart-after-failure'), addStartRequest: true },
  ],
  [
    'RerunOnFailure, Succeeded VMI: delete, no restart',
    vm(withStrategy('RerunOnFailure')),
    vmi(withPhase('Succeeded')),
    { ...del('stop'), addStartRequest: false },
  ],
  [
    'RerunOnFailure, stop request: delete, no restart',
    vm(withStrategy('RerunOnFailure'), withStopRequest()),
    running,
    { ...del('stop'), addStartRequest: false },
  ],
  [
    'RerunOnFailure, Failed VMI already deleting: nothing',
    vm(withStrategy('RerunOnFailure')),
    vmi(withPhase('Failed'), vmiDeleting),
    nothing,
  ],
  ['RerunOnFailure, running VMI: nothing', vm(withStrategy('RerunOnFailure')), running, nothing],
  [
    'RerunOnFailure, start request during backoff: requeue',
    vm(withStrategy('RerunOnFailure'), withStartRequest(), withStartFailure(1, T0 + 10_000)),
    undefined,
    { reason: 'backoff', requeueAfterMs: 10_000 },
  ],
  // Manual
  ['Manual, no VMI, no request: nothing', vm(withStrategy('Manual')), undefined, nothing],
  ['Manual, start request: start', vm(withStrategy('Manual'), withStartRequest()), undefined, create],
  [
    'Manual, start request ignores backoff',
    vm(withStrategy('Manual'), withStartRequest(), withStartFailure(3, T0 + 60_000)),
    undefined,
    create,
  ],
  [
    'Manual, stop request for the VMI: delete',
    vm(withStrategy('Manual'), withStopRequest()),
    running,
    del('stop-request'),
  ],
  ['Manual, Failed VMI: left alone', vm(withStrategy('Manual')), vmi(withPhase('Failed')), nothing],
  // Halted
  ['Halted, VMI: delete', vm(withStrategy('Halted')), running, del('halted')],
  [
    'Halted, VMI deleting: nothing more',
    vm(withStrategy('Halted')),
    vmi(withPhase('Running'), vmiDeleting),
    { deleteVmi: false, reason: 'halted-pending' },
  ],
  ['Halted, no VMI: nothing', vm(withStrategy('Halted')), undefined, nothing],
  [
    'Halted, start request: switch to Always',
    vm(withStrategy('Halted'), withStartRequest()),
    undefined,
    { switchToAlways: true, createVmi: false, reason: 'start-request' },
  ],
  [
    'running: false is Halted',
    vm((v) => {
      delete v.spec.runStrategy;
      v.spec.running = false;
    }),
    running,
    del('halted'),
  ],
  [
    'running: true is Always',
    vm((v) => {
      delete v.spec.runStrategy;
      v.spec.running = true;
    }),
    undefined,
    create,
  ],
  // Once
  ['Once, no VMI: start', vm(withStrategy('Once')), undefined, create],
  ['Once, Failed VMI: never restart', vm(withStrategy('Once')), vmi(withPhase('Failed')), nothing],
  ['Once, Succeeded VMI: never restart', vm(withStrategy('Once')), vmi(withPhase('Succeeded')), nothing],
  [
    'Once, no VMI ignores backoff',
    vm(withStrategy('Once'), withStartFailure(1, T0 + 60_000)),
    undefined,
    create,
  ],
  // Deletion and finalizers
  ['VM deleted with a VMI: delete the VMI', vm(vmDeleting), running, del('vm-deleted')],
  [
    'VM deleted, VMI gone: drop our finalizer',
    vm(vmDeleting),
    undefined,
    { vmFinalizer: 'remove', reason: 'vm-deleted' },
  ],
  [
    'VM deleted without our finalizer: nothing to drop',
    vm(vmDeleting, withoutVmFinalizer),
    undefined,
    { ...nothing, reason: 'vm-deleted' },
  ],
  [
    'VM deleted with orphan finalizer: keep VMI, drop ours',
    vm(vmDeleting, (v) => v.metadata.finalizers?.push('orphan')),
    running,
    { vmFinalizer: 'remove', reason: 'vm-deleted' },
  ],
  [
    'no finalizer yet: add it along with the decision',
    vm(withoutVmFinalizer),
    undefined,
    { ...create, vmFinalizer: 'add' },
  ],
  // Errors
  [
    'running and runStrategy both set: failure',
    vm((v) => (v.spec.running = true)),
    undefined,
    {
      reason: 'invalid',
      failure: {
        reason: 'FailedCreate',
        message: 'Error fetching RunStrategy: running and runstrategy are mutually exclusive',
      },
    },
  ],
  [
    'WaitAsReceiver: unsupported',
    vm(withStrategy('WaitAsReceiver')),
    undefined,
    {
      reason: 'unsupported',
      failure: { reason: 'FailedCreate', message: 'runStrategy WaitAsReceiver is not supported' },
    },
  ],
  [
    'stop request names the current VMI after a restart: old uid ignored',
    vm(withStopRequest('old')),
    vmi(withVmiUid('new'), withPhase('Running')),
    nothing,
  ],
];

describe('decideRun', () => {
  it.each(rows)('%s', (_name, v, i, want) => {
    expect(decideRun({ vm: v, vmi: i, nowMs: T0 })).toEqual({ ...nothing, ...want });
  });
});
