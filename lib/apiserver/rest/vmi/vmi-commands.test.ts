import { describe, expect, it } from '@jest/globals';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstancePhase,
} from '../../../kubevirt/index.ts';
import { FREEZE_NOT_SET, FREEZE_UNMARSHAL } from '../../../kubevirt/subresources/freeze-body.ts';
import { vm, vmi, withPhase, withVmiCondition } from '../../../kubevirt/testing/objects.ts';
import type { HandlerCall } from './handler-call.ts';
import {
  badRequest,
  conflict,
  forbidden,
  internalError,
  notFound,
  unmarshalFailed,
  type Refusal,
} from '../refusal.ts';
import { planVmiCommand, type CommandPlan, type VmiCommand, type VmiCommandRequest } from './vmi-commands.ts';

const onNode = (v: VirtualMachineInstance): void => {
  (v.status ??= {}).nodeName = 'node-1';
};
const inPhase = (
  phase: VirtualMachineInstancePhase,
  ...opts: ((v: VirtualMachineInstance) => void)[]
): VirtualMachineInstance => vmi(withPhase(phase), onNode, ...opts);
const running = inPhase('Running');
const paused = inPhase('Running', withVmiCondition('Paused', 'True'));
const vmiConflict = (text: string): Refusal => conflict('virtualmachineinstance', 'testvm', text);
const call = (sub: string, body: 'request' | 'none', failurePrefix?: string): { call: HandlerCall } => ({
  call: {
    kind: 'command',
    node: 'node-1',
    method: 'PUT',
    path: `/v1/namespaces/default/virtualmachineinstances/testvm/${sub}`,
    body,
    ...(failurePrefix !== undefined && { failurePrefix }),
  },
});
const acpiOff = (v: VirtualMachineInstance): void => {
  v.spec.domain.features = { acpi: { enabled: false } };
};
const snapshotting = vm((v: VirtualMachine) => {
  v.status = { snapshotInProgress: 'snap-1' };
});
const connectText = (phase: string): string =>
  `Unable to connect to VirtualMachineInstance because phase is ${phase} instead of Running or Scheduled`;
const freezeRefused = (text: string): Refusal =>
  internalError(`unexpected return code 400 (400 Bad Request), message: ${text}`);

type Row = [string, VmiCommand, Partial<VmiCommandRequest>, CommandPlan | Refusal];

const rows: Row[] = [
  ['pause: no VMI', 'pause', { vmi: undefined }, notFound('virtualmachineinstance', 'testvm')],
  [
    'pause: the body is read before the VMI',
    'pause',
    { vmi: undefined, body: { dryRun: 'All' } },
    unmarshalFailed(
      'json: cannot unmarshal string into Go struct field PauseOptions.dryRun of type []string',
    ),
  ],
  ['pause: not running', 'pause', { vmi: inPhase('Scheduled') }, vmiConflict('VM is not running')],
  [
    'pause: a liveness probe',
    'pause',
    {
      vmi: inPhase('Running', (v) => {
        v.spec.livenessProbe = { tcpSocket: { port: 22 } };
      }),
    },
    forbidden(
      'virtualmachineinstance',
      'testvm',
      'Pausing VMIs with LivenessProbe is currently not supported',
    ),
  ],
  ['pause: already paused', 'pause', { vmi: paused }, vmiConflict('VMI is already paused')],
  [
    'pause: a Paused condition of any status counts',
    'pause',
    { vmi: inPhase('Running', withVmiCondition('Paused', 'False')) },
    vmiConflict('VMI is already paused'),
  ],
  ['pause: forwarded without the body', 'pause', { vmi: running, body: {} }, call('pause', 'none')],
  [
    'pause: dryRun, checked only',
    'pause',
    { vmi: running, body: { dryRun: ['All'] } },
    { dryRun: true, status: 200 },
  ],
  [
    'pause: dryRun not All is forwarded',
    'pause',
    { vmi: running, body: { dryRun: ['x'] } },
    call('pause', 'none'),
  ],
  [
    'unpause: a snapshot in progress, before the body',
    'unpause',
    { vm: snapshotting, vmi: paused, body: 'x' },
    conflict('virtualmachine', 'testvm', 'VM snapshot is in progress'),
  ],
  [
    'unpause: a bad body',
    'unpause',
    { vm: vm(), vmi: paused, body: { dryRun: [true] } },
    unmarshalFailed('json: cannot unmarshal bool into Go struct field UnpauseOptions.dryRun of type string'),
  ],
  ['unpause: no VMI', 'unpause', { vmi: undefined }, notFound('virtualmachineinstance', 'testvm')],
  ['unpause: not running', 'unpause', { vmi: inPhase('Succeeded') }, vmiConflict('VMI is not running')],
  ['unpause: not paused', 'unpause', { vmi: running }, vmiConflict('VMI is not paused')],
  ['unpause: without a VM', 'unpause', { vmi: paused }, call('unpause', 'none')],
  [
    'unpause: dryRun',
    'unpause',
    { vm: vm(), vmi: paused, body: { dryRun: ['All'] } },
    { dryRun: true, status: 200 },
  ],
  ['freeze: no VMI', 'freeze', { vmi: undefined, rawBody: '' }, notFound('virtualmachineinstance', 'testvm')],
  [
    'freeze: not running',
    'freeze',
    { vmi: inPhase('Scheduled'), rawBody: '{}' },
    vmiConflict('VM is not running'),
  ],
  ['freeze: no body', 'freeze', { vmi: running }, freezeRefused(FREEZE_NOT_SET)],
  ['freeze: no timeout', 'freeze', { vmi: running, rawBody: '{}' }, freezeRefused(FREEZE_NOT_SET)],
  [
    'freeze: a bad timeout',
    'freeze',
    { vmi: running, rawBody: '{"unfreezeTimeout":"5d"}' },
    freezeRefused(FREEZE_UNMARSHAL),
  ],
  [
    'freeze: forwarded with the body',
    'freeze',
    { vmi: running, rawBody: '{"unfreezeTimeout":"5m0s"}' },
    call('freeze', 'request'),
  ],
  ['unfreeze: not running', 'unfreeze', { vmi: inPhase('Pending') }, vmiConflict('VMI is not running')],
  ['unfreeze: forwarded', 'unfreeze', { vmi: paused }, call('unfreeze', 'request')],
  ['softreboot: not running', 'softreboot', { vmi: inPhase('Scheduled') }, vmiConflict('VM is not running')],
  ['softreboot: paused', 'softreboot', { vmi: paused }, vmiConflict('VMI is paused')],
  [
    'softreboot: Paused False is no obstacle',
    'softreboot',
    { vmi: inPhase('Running', withVmiCondition('Paused', 'False')) },
    call('softreboot', 'request'),
  ],
  [
    'softreboot: no agent, ACPI off',
    'softreboot',
    { vmi: inPhase('Running', acpiOff) },
    vmiConflict('VMI neither have the agent connected nor the ACPI feature enabled'),
  ],
  [
    'softreboot: ACPI off, the agent connected',
    'softreboot',
    { vmi: inPhase('Running', acpiOff, withVmiCondition('AgentConnected', 'True')) },
    call('softreboot', 'request'),
  ],
  ['softreboot: no agent, ACPI by default', 'softreboot', { vmi: running }, call('softreboot', 'request')],
  ['reset: no VMI', 'reset', { vmi: undefined }, notFound('virtualmachineinstance', 'testvm')],
  [
    'reset: not reachable, explained',
    'reset',
    { vmi: inPhase('Pending') },
    badRequest(`Failed to reset non-running VMI with phase Pending: ${connectText('Pending')}`),
  ],
  [
    'reset: a VMI with no phase yet',
    'reset',
    { vmi: vmi() },
    badRequest(`Failed to reset non-running VMI with phase : ${connectText('')}`),
  ],
  [
    'reset: Scheduled is reachable; a failure will be explained',
    'reset',
    { vmi: inPhase('Scheduled') },
    call('reset', 'request', 'Failed to reset non-running VMI with phase Scheduled: '),
  ],
  ['reset: running', 'reset', { vmi: running }, call('reset', 'request')],
];

describe('planVmiCommand', () => {
  it.each(rows)('%s', (_name, command, req, want) => {
    expect(planVmiCommand(command, { name: 'testvm', vmi: undefined, ...req })).toEqual(want);
  });
});
