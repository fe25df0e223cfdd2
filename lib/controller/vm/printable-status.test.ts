import { describe, expect, it } from '@jest/globals';
import type { PrintableStatus } from '../../kubevirt/index.ts';
import {
  T0,
  vm,
  vmDeleting,
  vmi,
  vmiDeleting,
  withMigration,
  withPhase,
  withStartFailure,
  withStrategy,
  withVmiCondition,
} from '../../kubevirt/testing/objects.ts';
import { PRINTABLE_STATUS_ORDER, printableStatus, type PrintableStatusInput } from './printable-status.ts';

const input = (over: Partial<PrintableStatusInput>): PrintableStatusInput => ({
  vm: vm(),
  vmi: undefined,
  startExpected: false,
  stopExpected: false,
  nowMs: T0,
  ...over,
});

const running = vmi(withPhase('Running'));
const past = '2025-12-31T23:59:00Z';

describe('printableStatus', () => {
  it('evaluates in KubeVirt order', () => {
    expect(PRINTABLE_STATUS_ORDER).toEqual([
      'Terminating',
      'Stopping',
      'Migrating',
      'Paused',
      'Running',
      'ErrorPvcNotFound',
      'DataVolumeError',
      'ErrorUnschedulable',
      'Provisioning',
      'WaitingForVolumeBinding',
      'ErrImagePull',
      'ImagePullBackOff',
      'Starting',
      'CrashLoopBackOff',
      'Stopped',
      'WaitingForReceiver',
    ]);
  });

  // One row per status, each also holding the tests of the statuses after it where that is possible,
  // so the row shows the precedence.
  it.each<[string, PrintableStatus, PrintableStatusInput]>([
    [
      'VM being deleted, VMI running and paused',
      'Terminating',
      input({ vm: vm(vmDeleting), vmi: vmi(withPhase('Running'), withVmiCondition('Paused', 'True')) }),
    ],
    ['VMI deleting while running', 'Stopping', input({ vmi: vmi(withPhase('Running'), vmiDeleting) })],
    ['stop expected while running', 'Stopping', input({ vmi: running, stopExpected: true })],
    [
      'final VMI being deleted is not Stopping',
      'Stopped',
      input({ vmi: vmi(withPhase('Failed'), vmiDeleting) }),
    ],
    [
      'migration in progress on a running VMI',
      'Migrating',
      input({ vmi: vmi(withPhase('Running'), withMigration(past)) }),
    ],
    ['migration ended', 'Running', input({ vmi: vmi(withPhase('Running'), withMigration(past, past)) })],
    [
      'migration starting in the future',
      'Running',
      input({ vmi: vmi(withPhase('Running'), withMigration('2026-01-02T00:00:00Z')) }),
    ],
    [
      'running and paused',
      'Paused',
      input({ vmi: vmi(withPhase('Running'), withVmiCondition('Paused', 'True')) }),
    ],
    [
      'running, Paused=False',
      'Running',
      input({ vmi: vmi(withPhase('Running'), withVmiCondition('Paused', 'False')) }),
    ],
    ['running', 'Running', input({ vmi: running })],
    [
      'PVC not found on a scheduling VMI',
      'ErrorPvcNotFound',
      input({
        vmi: vmi(
          withPhase('Pending'),
          withVmiCondition('Synchronized', 'False', 'FailedPvcNotFound'),
          withVmiCondition('PodScheduled', 'False', 'Unschedulable'),
        ),
      }),
    ],
    [
      'DataVolume error',
      'DataVolumeError',
      input({
        vmi: vmi(withPhase('Pending'), withVmiCondition('PodScheduled', 'False', 'Unschedulable')),
        volumes: { dataVolumeError: true, dataVolumeProvisioning: true },
      }),
    ],
    [
      'pod unschedulable',
      'ErrorUnschedulable',
      input({
        vmi: vmi(withPhase('Scheduling'), withVmiCondition('PodScheduled', 'False', 'Unschedulable')),
        volumes: { dataVolumeProvisioning: true },
      }),
    ],
    [
      'PodScheduled False for another reason is not unschedulable',
      'Starting',
      input({
        vmi: vmi(withPhase('Scheduling'), withVmiCondition('PodScheduled', 'False', 'SchedulingGated')),
      }),
    ],
    [
      'DataVolume provisioning',
      'Provisioning',
      input({ vmi: vmi(withPhase('Pending')), volumes: { dataVolumeProvisioning: true, unboundPvc: true } }),
    ],
    [
      'unbound PVC and set to start',
      'WaitingForVolumeBinding',
      input({ vmi: vmi(withPhase('Pending')), volumes: { unboundPvc: true } }),
    ],
    [
      'unbound PVC, Halted: not waiting',
      'Stopped',
      input({ vm: vm(withStrategy('Halted')), volumes: { unboundPvc: true } }),
    ],
    [
      'image pull error',
      'ErrImagePull',
      input({ vmi: vmi(withPhase('Scheduling'), withVmiCondition('Synchronized', 'False', 'ErrImagePull')) }),
    ],
    [
      'image pull backoff',
      'ImagePullBackOff',
      input({
        vmi: vmi(withPhase('Scheduling'), withVmiCondition('Synchronized', 'False', 'ImagePullBackOff')),
      }),
    ],
    ['no VMI, start expected', 'Starting', input({ startExpected: true, vm: vm(withStartFailure(2, T0)) })],
    ['VMI without phase', 'Starting', input({ vmi: vmi() })],
    ['VMI pending', 'Starting', input({ vmi: vmi(withPhase('Pending')) })],
    ['VMI scheduling', 'Starting', input({ vmi: vmi(withPhase('Scheduling')) })],
    ['VMI scheduled', 'Starting', input({ vmi: vmi(withPhase('Scheduled')) })],
    [
      'no VMI, start failures under Always',
      'CrashLoopBackOff',
      input({ vm: vm(withStartFailure(1, T0 + 10_000)) }),
    ],
    [
      'final VMI, start failures under RerunOnFailure',
      'CrashLoopBackOff',
      input({
        vm: vm(withStrategy('RerunOnFailure'), withStartFailure(1, T0)),
        vmi: vmi(withPhase('Failed')),
      }),
    ],
    [
      'start failures under Manual are not a crash loop',
      'Stopped',
      input({ vm: vm(withStrategy('Manual'), withStartFailure(1, T0)) }),
    ],
    ['no VMI, no start expected', 'Stopped', input({})],
    ['Succeeded VMI', 'Stopped', input({ vmi: vmi(withPhase('Succeeded')) })],
    [
      'WaitAsReceiver while a start is expected',
      'WaitingForReceiver',
      input({ vm: vm(withStrategy('WaitAsReceiver')), vmi: vmi(withPhase('WaitingForSync')) }),
    ],
    ['unknown phase', 'Unknown', input({ vmi: vmi(withPhase('Unknown')) })],
  ])('%s → %s', (_name, want, i) => {
    expect(printableStatus(i)).toBe(want);
  });
});
