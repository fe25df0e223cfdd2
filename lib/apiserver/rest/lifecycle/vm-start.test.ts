import { describe, expect, it } from '@jest/globals';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstancePhase,
} from '../../../kubevirt/index.ts';
import {
  vm,
  vmi,
  VMI_UID,
  withPhase,
  withStartRequest,
  withStrategy,
  withVmCondition,
} from '../../../kubevirt/testing/objects.ts';
import type { VmPlan } from '../patch-plan.ts';
import { conflict, internalError, notFound, unmarshalFailed, type Refusal } from '../refusal.ts';
import { CHANGE_UNDERWAY } from './state-change.ts';
import { accepted, addRequests, patchOf } from '../testing/plans.ts';
import { MANUAL_RECOVERY_REQUIRED } from '../messages.ts';
import { planStart } from './vm-start.ts';

const started = (v: VirtualMachine): void => {
  v.status = { printableStatus: 'Stopped' };
};
const running = vmi(withPhase('Running'));
const named = (phase: VirtualMachineInstancePhase): VirtualMachineInstance => vmi(withPhase(phase));
const conflictVm = (text: string): Refusal => conflict('virtualmachine', 'testvm', text);
const pausedStart = { action: 'Start', data: { paused: 'true' } };
const toAlways = [
  { op: 'test', path: '/spec/runStrategy', value: 'Halted' },
  { op: 'replace', path: '/spec/runStrategy', value: 'Always' },
] as const;

type Row = [
  string,
  VirtualMachine | undefined,
  VirtualMachineInstance | undefined,
  unknown,
  VmPlan | Refusal,
];

const rows: Row[] = [
  ['no VM: 404 before anything', undefined, running, { paused: 'x' }, notFound('virtualmachine', 'testvm')],
  ['running VMI', vm(withStrategy('Manual')), running, undefined, conflictVm('VM is already running')],
  [
    'scheduling VMI counts as running',
    vm(withStrategy('Halted')),
    named('Scheduling'),
    {},
    conflictVm('VM is already running'),
  ],
  [
    'manual recovery required',
    vm(withStrategy('Halted'), withVmCondition('ManualRecoveryRequired', 'True')),
    undefined,
    undefined,
    conflictVm(MANUAL_RECOVERY_REQUIRED),
  ],
  [
    'manual recovery condition False is no obstacle',
    vm(withStrategy('Halted'), withVmCondition('ManualRecoveryRequired', 'False')),
    undefined,
    undefined,
    accepted(patchOf('vm', [...toAlways])),
  ],
  [
    'a body that does not decode (read after the VM checks)',
    vm(withStrategy('Halted')),
    undefined,
    { paused: 'yes' },
    unmarshalFailed('json: cannot unmarshal string into Go struct field StartOptions.paused of type bool'),
  ],
  [
    'both running and runStrategy',
    vm((v) => {
      v.spec.running = false;
    }),
    undefined,
    undefined,
    internalError('running and runstrategy are mutually exclusive'),
  ],
  [
    'Halted: run strategy to Always',
    vm(withStrategy('Halted')),
    undefined,
    undefined,
    accepted(patchOf('vm', [...toAlways])),
  ],
  [
    'Halted with dryRun: passed to the patch',
    vm(withStrategy('Halted')),
    undefined,
    { dryRun: ['All'] },
    accepted(patchOf('vm', [...toAlways], ['All'])),
  ],
  [
    'Halted from running=false',
    vm((v) => {
      delete v.spec.runStrategy;
      v.spec.running = false;
    }),
    undefined,
    undefined,
    accepted(
      patchOf('vm', [
        { op: 'test', path: '/spec/running', value: false },
        { op: 'replace', path: '/spec/running', value: true },
      ]),
    ),
  ],
  [
    'Halted, paused: a paused start request, no status yet',
    vm(withStrategy('Halted')),
    undefined,
    { paused: true },
    accepted(
      patchOf('vm/status', [{ op: 'add', path: '/status', value: { stateChangeRequests: [pausedStart] } }]),
    ),
  ],
  [
    'Halted, paused, a final VMI left over',
    vm(withStrategy('Halted'), started),
    named('Succeeded'),
    { paused: true, dryRun: ['All'] },
    accepted(patchOf('vm/status', addRequests(pausedStart), ['All'])),
  ],
  [
    'Manual: start request',
    vm(withStrategy('Manual'), started),
    undefined,
    {},
    accepted(patchOf('vm/status', addRequests({ action: 'Start' }))),
  ],
  [
    'Manual, Unknown VMI: a start request alone',
    vm(withStrategy('Manual'), started),
    named('Unknown'),
    undefined,
    accepted(patchOf('vm/status', addRequests({ action: 'Start' }))),
  ],
  [
    'Manual, final VMI: stop it, then start',
    vm(withStrategy('Manual'), started),
    named('Failed'),
    { paused: true },
    accepted(patchOf('vm/status', addRequests({ action: 'Stop', uid: VMI_UID }, pausedStart))),
  ],
  [
    'Manual with a request pending',
    vm(withStrategy('Manual'), withStartRequest()),
    undefined,
    undefined,
    internalError(CHANGE_UNDERWAY),
  ],
  [
    'RerunOnFailure, Succeeded VMI: stop it, then start',
    vm(withStrategy('RerunOnFailure'), started),
    named('Succeeded'),
    undefined,
    accepted(patchOf('vm/status', addRequests({ action: 'Stop', uid: VMI_UID }, { action: 'Start' }))),
  ],
  [
    'RerunOnFailure, Failed VMI',
    vm(withStrategy('RerunOnFailure')),
    named('Failed'),
    undefined,
    conflictVm('RerunOnFailure does not support starting VM from failed state'),
  ],
  [
    'Always',
    vm(withStrategy('Always')),
    undefined,
    undefined,
    conflictVm('Always does not support manual start requests'),
  ],
  [
    'Once',
    vm(withStrategy('Once')),
    undefined,
    undefined,
    conflictVm('Once does not support manual start requests'),
  ],
  [
    'running=true reads as Always',
    vm((v) => {
      delete v.spec.runStrategy;
      v.spec.running = true;
    }),
    undefined,
    undefined,
    conflictVm('Always does not support manual start requests'),
  ],
  [
    'WaitAsReceiver: nothing written, still 202',
    vm(withStrategy('WaitAsReceiver')),
    undefined,
    undefined,
    accepted(),
  ],
];

describe('planStart', () => {
  it.each(rows)('%s', (...row: Row) => {
    const [, v, i, body, want] = row;
    expect(planStart({ name: 'testvm', vm: v, vmi: i, body })).toEqual(want);
  });
});
