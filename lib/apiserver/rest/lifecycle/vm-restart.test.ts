import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import {
  vm,
  vmi,
  VMI_UID,
  withMigration,
  withPhase,
  withStopRequest,
  withStrategy,
  withVmCondition,
} from '../../../kubevirt/testing/objects.ts';
import { launcherPodSelectors, pickLauncherPod } from './launcher-pod.ts';
import type { VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, internalError, notFound, unmarshalFailed, type Refusal } from '../refusal.ts';
import { CHANGE_UNDERWAY } from './state-change.ts';
import { addRequests, patchOf } from '../testing/plans.ts';
import { MANUAL_RECOVERY_REQUIRED } from '../messages.ts';
import { NEGATIVE_GRACE, ONLY_ZERO_GRACE, planRestart } from './vm-restart.ts';

const withStatus = (v: VirtualMachine): void => {
  v.status = { printableStatus: 'Running' };
};
const running = vmi(withPhase('Running'));
const conflictVm = (text: string): Refusal => conflict('virtualmachine', 'testvm', text);
const restartOps = addRequests({ action: 'Stop', uid: VMI_UID }, { action: 'Start' });

type Row = [
  string,
  VirtualMachine | undefined,
  VirtualMachineInstance | undefined,
  unknown,
  VmPlan | Refusal,
];

const rows: Row[] = [
  [
    'no VM and a positive grace period: the body first',
    undefined,
    running,
    { gracePeriodSeconds: 1 },
    badRequest(ONLY_ZERO_GRACE),
  ],
  ['no VM', undefined, running, {}, notFound('virtualmachine', 'testvm')],
  [
    'a body that does not decode',
    vm(),
    running,
    { gracePeriodSeconds: true },
    unmarshalFailed(
      'json: cannot unmarshal bool into Go struct field RestartOptions.gracePeriodSeconds of type int64',
    ),
  ],
  ['a positive grace period', vm(), running, { gracePeriodSeconds: 30 }, badRequest(ONLY_ZERO_GRACE)],
  ['a negative grace period', vm(), running, { gracePeriodSeconds: -1 }, badRequest(NEGATIVE_GRACE)],
  [
    'volumes changing',
    vm(withVmCondition('VolumesChange', 'True')),
    running,
    undefined,
    conflictVm(MANUAL_RECOVERY_REQUIRED),
  ],
  [
    'both running and runStrategy',
    vm((v) => {
      v.spec.running = true;
    }),
    running,
    undefined,
    internalError('running and runstrategy are mutually exclusive'),
  ],
  [
    'Halted',
    vm(withStrategy('Halted')),
    running,
    undefined,
    conflictVm('RunStategy Halted does not support manual restart requests'),
  ],
  [
    'Once',
    vm(withStrategy('Once')),
    running,
    undefined,
    conflictVm('RunStategy Once does not support manual restart requests'),
  ],
  ['no VMI', vm(), undefined, undefined, conflictVm('VM is not running: Halted')],
  ['a request pending', vm(withStopRequest()), running, undefined, internalError(CHANGE_UNDERWAY)],
  [
    'Always: stop and start',
    vm(withStatus),
    running,
    undefined,
    { patches: [patchOf('vm/status', restartOps)], then: { status: 202 } },
  ],
  [
    'Manual, a final VMI is restarted too, with dryRun',
    vm(withStrategy('Manual'), withStatus),
    vmi(withPhase('Failed')),
    { dryRun: ['All'] },
    { patches: [patchOf('vm/status', restartOps, ['All'])], then: { status: 202 } },
  ],
  [
    'forced: then delete the launcher pod',
    vm(withStrategy('RerunOnFailure'), withStatus),
    running,
    { gracePeriodSeconds: 0 },
    {
      patches: [patchOf('vm/status', restartOps)],
      then: { status: 202 },
      deleteLauncherPod: { vmiUid: VMI_UID, gracePeriodSeconds: 1 },
    },
  ],
];

describe('planRestart', () => {
  it.each(rows)('%s', (...row: Row) => {
    const [, v, i, body, want] = row;
    expect(planRestart({ name: 'testvm', vm: v, vmi: i, body })).toEqual(want);
  });
});

describe('pickLauncherPod', () => {
  const migrated = vmi(withMigration('2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z'), (i) => {
    Object.assign(i.status?.migrationState ?? {}, { completed: true, targetPod: 'virt-launcher-b' });
  });
  it.each<[string, string[], VirtualMachineInstance, string | undefined]>([
    ['none running', [], running, undefined],
    ['the only one', ['virt-launcher-a'], running, 'virt-launcher-a'],
    ['two, no migration: the first', ['virt-launcher-a', 'virt-launcher-b'], running, 'virt-launcher-a'],
    [
      'two, migration completed: its target',
      ['virt-launcher-a', 'virt-launcher-b'],
      migrated,
      'virt-launcher-b',
    ],
    ['two, target not among them', ['virt-launcher-a', 'virt-launcher-c'], migrated, undefined],
  ])('%s', (_name, names, i, want) => {
    expect(pickLauncherPod(names, i)).toBe(want);
  });

  it('lists running launcher pods of the VMI', () => {
    expect(launcherPodSelectors('u1')).toEqual({
      labelSelector: 'kubevirt.io=virt-launcher,kubevirt.io/created-by=u1',
      fieldSelector: 'status.phase==Running',
    });
  });
});
