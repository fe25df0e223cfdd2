import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  onSpec,
  T0,
  vm,
  vmi,
  withPhase,
  withStartRequest,
  withStopRequest,
  withStrategy,
  withVmCondition,
  withVmiCondition,
  withVmiUid,
} from '../../kubevirt/testing/objects.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from '../../kubevirt/testing/resource-claims.ts';
import { computeVmStatus, type VmStatusInput } from './vm-status.ts';

const NOW = '2026-01-01T00:00:00Z';
const input = (
  v: VirtualMachine,
  i: VirtualMachineInstance | undefined,
  over: Partial<VmStatusInput> = {},
): VmStatusInput => ({
  vm: v,
  vmi: i,
  failure: undefined,
  startExpected: false,
  stopExpected: false,
  nowMs: T0,
  random: () => 0,
  ...over,
});

describe('computeVmStatus', () => {
  it('no VMI yet, creation expected: Starting, Ready False VMINotExists', () => {
    expect(computeVmStatus(input(vm(), undefined, { startExpected: true }))).toEqual({
      created: false,
      ready: false,
      printableStatus: 'Starting',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'VMINotExists',
          message: 'VMI does not exist',
          lastProbeTime: NOW,
          lastTransitionTime: NOW,
        },
      ],
    });
  });

  it('running and ready VMI: created, ready, run strategy recorded, VMI conditions mirrored', () => {
    const i = vmi(
      withPhase('Running'),
      withVmiCondition('Ready', 'True'),
      withVmiCondition('LiveMigratable', 'False', 'NotMigratable', 'no'),
    );
    expect(computeVmStatus(input(vm(), i))).toEqual({
      created: true,
      ready: true,
      runStrategy: 'Always',
      printableStatus: 'Running',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'LiveMigratable', status: 'False', reason: 'NotMigratable', message: 'no' },
      ],
    });
  });

  it('VMI without Ready condition: Ready False VMIConditionMissing', () => {
    const s = computeVmStatus(input(vm(), vmi(withPhase('Scheduling'))));
    expect(s.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'VMIConditionMissing',
    });
  });

  it('keeps a condition whose status and reason did not change (no churn from fresh times)', () => {
    const v = vm(
      (x) =>
        (x.status = {
          conditions: [
            { type: 'Ready', status: 'False', reason: 'VMINotExists', lastProbeTime: '2020-01-01T00:00:00Z' },
          ],
        }),
    );
    expect(computeVmStatus(input(v, undefined)).conditions).toEqual([
      { type: 'Ready', status: 'False', reason: 'VMINotExists', lastProbeTime: '2020-01-01T00:00:00Z' },
    ]);
  });

  it('drops mirrored conditions the VMI no longer has, keeps Failure-free list', () => {
    const v = vm(
      withVmCondition('Paused', 'True'),
      withVmCondition('Failure', 'True', 'FailedCreate'),
      withVmCondition('RestartRequired', 'True'),
    );
    const s = computeVmStatus(input(v, vmi(withPhase('Running'))));
    expect(s.conditions?.map((c) => c.type)).toEqual(['RestartRequired', 'Ready']);
  });

  it('sync failure: Failure condition with reason and message', () => {
    const s = computeVmStatus(
      input(vm(), undefined, { failure: { reason: 'FailedCreate', message: 'boom' } }),
    );
    expect(s.conditions).toContainEqual({
      type: 'Failure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'boom',
      lastTransitionTime: NOW,
    });
  });

  it.each<[string, VirtualMachine, VirtualMachineInstance | undefined, number | undefined]>([
    ['Stop request done once the VMI is gone', vm(withStopRequest()), undefined, 0],
    ['Stop request kept while its VMI exists', vm(withStopRequest()), vmi(withPhase('Running')), 1],
    [
      'Stop request done when a new VMI replaced it',
      vm(withStopRequest()),
      vmi(withVmiUid('new'), withPhase('Running')),
      0,
    ],
    ['Start request done once a live VMI exists', vm(withStartRequest()), vmi(withPhase('Scheduling')), 0],
    ['Start request kept while the VMI is final', vm(withStartRequest()), vmi(withPhase('Failed')), 1],
    ['Start request kept while no VMI exists', vm(withStartRequest()), undefined, 1],
    [
      'only the first request is trimmed',
      vm(withStartRequest(), withStopRequest()),
      vmi(withPhase('Running')),
      1,
    ],
  ])('%s', (_n, v, i, left) => {
    expect(computeVmStatus(input(v, i)).stateChangeRequests?.length).toBe(left === 0 ? undefined : left);
  });

  it('first early failure sets startFailure and CrashLoopBackOff', () => {
    const s = computeVmStatus(input(vm(), vmi(withPhase('Failed', 'Pending'))));
    expect(s.startFailure).toEqual({
      consecutiveFailCount: 1,
      lastFailedVMIUID: 'vmi-uid-1',
      retryAfterTimestamp: '2026-01-01T00:00:10Z',
    });
    expect(s.printableStatus).toBe('CrashLoopBackOff');
  });

  it('run strategy is recorded only once something was created', () => {
    expect(computeVmStatus(input(vm(withStrategy('Manual')), undefined)).runStrategy).toBeUndefined();
    const v = vm(withStrategy('Halted'), (x) => ((x.status ??= {}).runStrategy = 'Always'));
    expect(computeVmStatus(input(v, undefined)).runStrategy).toBe('Halted');
  });

  it('drops volume requests the template reflects, keeps the others', () => {
    const v = vm((x) => {
      x.spec.template.spec.volumes = [
        { name: 'hp', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } },
      ];
      x.spec.template.spec.domain.devices.disks = [{ name: 'hp', disk: { bus: 'scsi' } }];
      x.status = {
        volumeRequests: [
          {
            addVolumeOptions: {
              name: 'hp',
              disk: { name: 'hp' },
              volumeSource: { persistentVolumeClaim: { claimName: 'c' } },
            },
          },
          { removeVolumeOptions: { name: 'hp' } },
          { removeVolumeOptions: { name: 'gone' } },
        ],
      };
    });
    expect(computeVmStatus(input(v, undefined)).volumeRequests).toEqual([
      { removeVolumeOptions: { name: 'hp' } },
    ]);
  });

  it('drops resource claim requests the template reflects (by host device), keeps the others', () => {
    const v = vm(onSpec(withResourceClaim(templateClaim('gpu1')), withHostDevice(draDevice('gpu1'))), (x) => {
      x.status = {
        resourceClaimRequests: [addClaim('gpu1'), addClaim('gpu2'), removeClaim('gpu1'), removeClaim('gone')],
      };
    });
    expect(computeVmStatus(input(v, undefined)).resourceClaimRequests).toEqual([
      addClaim('gpu2'),
      removeClaim('gpu1'),
    ]);
  });

  it('leaves resource claim requests out once all are done', () => {
    const v = vm((x) => (x.status = { resourceClaimRequests: [removeClaim('gone')] }));
    expect(computeVmStatus(input(v, undefined))).not.toHaveProperty('resourceClaimRequests');
  });

  it('does not touch its input', () => {
    const v = vm(withStopRequest());
    const before = structuredClone(v);
    computeVmStatus(input(v, undefined));
    expect(v).toEqual(before);
  });
});

describe('computeVmStatus: RestartRequired', () => {
  const restartOf = (s: ReturnType<typeof computeVmStatus>): unknown =>
    s.conditions?.find((c) => c.type === 'RestartRequired');

  it('is set with the live update message while the VMI runs', () => {
    const s = computeVmStatus(
      input(vm(), vmi(withPhase('Running')), {
        restartRequired: 'Reduction of CPU socket count requires a restart',
      }),
    );
    expect(restartOf(s)).toEqual({
      type: 'RestartRequired',
      status: 'True',
      message: 'Reduction of CPU socket count requires a restart',
      lastTransitionTime: NOW,
    });
  });

  it('stays while the VMI runs, even when this sync found nothing new', () => {
    const s = computeVmStatus(
      input(vm(withVmCondition('RestartRequired', 'True')), vmi(withPhase('Running'))),
    );
    expect(restartOf(s)).toEqual({ type: 'RestartRequired', status: 'True' });
  });

  it('goes once no VMI exists', () => {
    const s = computeVmStatus(input(vm(withVmCondition('RestartRequired', 'True')), undefined));
    expect(restartOf(s)).toBeUndefined();
  });
});
