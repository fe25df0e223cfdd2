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
} from '../../../kubevirt/testing/objects.ts';
import type { PatchPlan, VmPlan } from '../patch-plan.ts';
import { conflict, internalError, notFound, unmarshalFailed, type Refusal } from '../refusal.ts';
import { accepted, addRequests, patchOf, refusedAfter } from '../testing/plans.ts';
import { HALTED_NEEDS_SHORTER_GRACE, planStop } from './vm-stop.ts';

const withStatus = (v: VirtualMachine): void => {
  v.status = { printableStatus: 'Running' };
};
const inPhase = (phase: VirtualMachineInstancePhase, grace?: number): VirtualMachineInstance =>
  vmi(withPhase(phase), (i) => {
    if (grace !== undefined) i.spec.terminationGracePeriodSeconds = grace;
  });
const running = inPhase('Running', 180);
const conflictVm = (text: string): Refusal => conflict('virtualmachine', 'testvm', text);
const stopRequest = (dryRun?: string[]): PatchPlan =>
  patchOf('vm/status', addRequests({ action: 'Stop', uid: VMI_UID }), dryRun);
const grace = (old: number | null, to: number, dryRun?: string[]): PatchPlan =>
  patchOf(
    'vmi',
    [
      { op: 'test', path: '/spec/terminationGracePeriodSeconds', value: old },
      { op: 'replace', path: '/spec/terminationGracePeriodSeconds', value: to },
    ],
    dryRun,
    { kind: 'internal' },
  );
const toHalted = (from: string): PatchPlan =>
  patchOf('vm', [
    { op: 'test', path: '/spec/runStrategy', value: from },
    { op: 'replace', path: '/spec/runStrategy', value: 'Halted' },
  ]);

type Row = [
  string,
  VirtualMachine | undefined,
  VirtualMachineInstance | undefined,
  unknown,
  VmPlan | Refusal,
];

const rows: Row[] = [
  [
    'no VM and a bad body: the body is read first',
    undefined,
    undefined,
    { gracePeriod: 'x' },
    unmarshalFailed(
      'json: cannot unmarshal string into Go struct field StopOptions.gracePeriod of type int64',
    ),
  ],
  ['no VM', undefined, running, { gracePeriod: 1 }, notFound('virtualmachine', 'testvm')],
  [
    'a body that does not decode',
    vm(withStrategy('Manual')),
    running,
    { gracePeriod: '10' },
    unmarshalFailed(
      'json: cannot unmarshal string into Go struct field StopOptions.gracePeriod of type int64',
    ),
  ],
  [
    'both running and runStrategy',
    vm((v) => {
      v.spec.running = true;
    }),
    undefined,
    undefined,
    internalError('running and runstrategy are mutually exclusive'),
  ],
  ['Always: run strategy to Halted', vm(), running, undefined, accepted(toHalted('Always'))],
  ['Always without a VMI: still Halted', vm(), undefined, {}, accepted(toHalted('Always'))],
  ['Once', vm(withStrategy('Once')), running, undefined, accepted(toHalted('Once'))],
  [
    'Always with a grace period: the VMI first',
    vm(),
    running,
    { gracePeriod: 5, dryRun: ['All'] },
    accepted(grace(180, 5, ['All']), {
      ...toHalted('Always'),
      dryRun: ['All'],
    }),
  ],
  [
    'grace period on a VMI without one: tested as null',
    vm(),
    inPhase('Running'),
    { gracePeriod: 0 },
    accepted(grace(null, 0), toHalted('Always')),
  ],
  [
    'grace period on a final VMI: not patched',
    vm(),
    inPhase('Succeeded', 30),
    { gracePeriod: 0 },
    accepted(toHalted('Always')),
  ],
  [
    'Manual: stop request',
    vm(withStrategy('Manual'), withStatus),
    running,
    undefined,
    accepted(stopRequest()),
  ],
  [
    'RerunOnFailure with dryRun',
    vm(withStrategy('RerunOnFailure'), withStatus),
    running,
    { dryRun: ['All'] },
    accepted(stopRequest(['All'])),
  ],
  [
    'Manual: a stop replaces a pending start',
    vm(withStrategy('Manual'), withStartRequest()),
    running,
    undefined,
    accepted(
      patchOf('vm/status', [
        { op: 'test', path: '/status/stateChangeRequests', value: [{ action: 'Start' }] },
        { op: 'replace', path: '/status/stateChangeRequests', value: [{ action: 'Stop', uid: VMI_UID }] },
      ]),
    ),
  ],
  ['Manual without a VMI', vm(withStrategy('Manual')), undefined, undefined, conflictVm('VM is not running')],
  [
    'RerunOnFailure, final VMI',
    vm(withStrategy('RerunOnFailure')),
    inPhase('Failed'),
    undefined,
    conflictVm('VM is not running'),
  ],
  [
    'Halted without a VMI',
    vm(withStrategy('Halted')),
    undefined,
    { gracePeriod: 1 },
    conflictVm('VM is not running'),
  ],
  [
    'Halted with no grace period',
    vm(withStrategy('Halted')),
    running,
    undefined,
    refusedAfter(conflictVm(HALTED_NEEDS_SHORTER_GRACE)),
  ],
  [
    'Halted with the same grace period: the VMI is patched, then 409',
    vm(withStrategy('Halted')),
    running,
    { gracePeriod: 180 },
    refusedAfter(conflictVm(HALTED_NEEDS_SHORTER_GRACE), grace(180, 180)),
  ],
  [
    'Halted with a shorter grace period: patch and stop request',
    vm(withStrategy('Halted'), withStatus),
    running,
    { gracePeriod: 10 },
    accepted(grace(180, 10), stopRequest()),
  ],
  [
    'Halted, VMI without a grace period: any grace period hurries it',
    vm(withStrategy('Halted'), withStatus),
    inPhase('Scheduled'),
    { gracePeriod: 600 },
    accepted(grace(null, 600), stopRequest()),
  ],
  [
    'WaitAsReceiver: nothing but the grace period',
    vm(withStrategy('WaitAsReceiver')),
    running,
    { gracePeriod: 3 },
    accepted(grace(180, 3)),
  ],
];

describe('planStop', () => {
  it.each(rows)('%s', (...row: Row) => {
    const [, v, i, body, want] = row;
    expect(planStop({ name: 'testvm', vm: v, vmi: i, body })).toEqual(want);
  });
});
