import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstancePhase } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import {
  onNode,
  pod,
  podDeleting,
  podReady,
  T0,
  vmi,
  vmiDeleting,
  withContainer,
  withPhase,
  withPodCondition,
  withPodPhase,
  withVmiCondition,
} from '../../kubevirt/testing/objects.ts';
import { computeVmiStatus, type VmiStatusInput } from './vmi-status.ts';

const NOW = '2026-01-01T00:00:00Z';
const VMI_FIN = 'foregroundDeleteVirtualMachine';
const VM_FIN = 'kubevirt.io/virtualMachineControllerFinalize';

const input = (
  v: VirtualMachineInstance,
  p: Pod | undefined,
  over: Partial<VmiStatusInput> = {},
): VmiStatusInput => ({
  vmi: v,
  pod: p,
  pods: p === undefined ? [] : [p],
  ownerVmExists: true,
  nowMs: T0,
  ...over,
});

const withFinalizers =
  (...f: string[]) =>
  (v: VirtualMachineInstance) => {
    v.metadata.finalizers = f;
  };

describe('computeVmiStatus: phase', () => {
  const unschedulable = withPodCondition({
    type: 'PodScheduled',
    status: 'False',
    reason: 'Unschedulable',
    message: '0/3 nodes',
  });
  it.each<[string, VirtualMachineInstance, Pod | undefined, VirtualMachineInstancePhase]>([
    ['new VMI, no Pod: Pending', vmi(), undefined, 'Pending'],
    ['new VMI, Pod created: Scheduling', vmi(), pod(), 'Scheduling'],
    [
      'Pending VMI being deleted, no Pod: Failed',
      vmi(withPhase('Pending'), vmiDeleting),
      undefined,
      'Failed',
    ],
    ['Scheduling, Pod pending: stays', vmi(withPhase('Scheduling')), pod(), 'Scheduling'],
    [
      'Scheduling, Pod running but compute not started: stays',
      vmi(withPhase('Scheduling')),
      pod(
        onNode('n1'),
        withPodPhase('Running'),
        withContainer({ name: 'compute', ready: false, state: { waiting: {} } }),
      ),
      'Scheduling',
    ],
    ['Scheduling, Pod ready: Scheduled', vmi(withPhase('Scheduling')), pod(podReady('n1')), 'Scheduled'],
    [
      'Scheduling, Pod ready but VMI deleting: stays',
      vmi(withPhase('Scheduling'), vmiDeleting),
      pod(podReady('n1')),
      'Scheduling',
    ],
    [
      'Scheduling, a sidecar not ready: stays',
      vmi(withPhase('Scheduling')),
      pod(podReady('n1'), withContainer({ name: 'hook', ready: false })),
      'Scheduling',
    ],
    ['Scheduling, Pod failed: Failed', vmi(withPhase('Scheduling')), pod(withPodPhase('Failed')), 'Failed'],
    ['Scheduling, Pod deleting: Failed', vmi(withPhase('Scheduling')), pod(podDeleting), 'Failed'],
    [
      'Scheduling, compute terminated: Failed',
      vmi(withPhase('Scheduling')),
      pod(
        withPodPhase('Running'),
        withContainer({ name: 'compute', ready: false, state: { terminated: { exitCode: 1 } } }),
      ),
      'Failed',
    ],
    ['Scheduling, Pod gone: Failed', vmi(withPhase('Scheduling')), undefined, 'Failed'],
    ['Scheduling, unschedulable: stays', vmi(withPhase('Scheduling')), pod(unschedulable), 'Scheduling'],
    ['Scheduled, Pod gone: Failed', vmi(withPhase('Scheduled')), undefined, 'Failed'],
    [
      'Scheduled, Pod there: stays (Running is the node’s)',
      vmi(withPhase('Scheduled')),
      pod(podReady('n1')),
      'Scheduled',
    ],
    ['Running, Pod gone: Failed', vmi(withPhase('Running')), undefined, 'Failed'],
    ['Running, Pod there: stays', vmi(withPhase('Running')), pod(podReady('n1')), 'Running'],
    ['Failed stays Failed', vmi(withPhase('Failed')), undefined, 'Failed'],
    ['WaitingForSync with a Pod: Scheduling', vmi(withPhase('WaitingForSync')), pod(), 'Scheduling'],
  ])('%s', (_n, v, p, want) => {
    expect(computeVmiStatus(input(v, p)).vmi.status?.phase).toBe(want);
  });
});

describe('computeVmiStatus: details', () => {
  it('first write of a new VMI with its Pod: Scheduling, finalizer, Ready False, transition, activePods', () => {
    const p = pod();
    const r = computeVmiStatus(input(vmi(), p));
    expect(r.nodeOwned).toBe(false);
    expect(r.vmi.metadata.finalizers).toEqual([VMI_FIN]);
    expect(r.vmi.status).toEqual({
      phase: 'Scheduling',
      activePods: { 'pod-uid-1': '' },
      launcherContainerImageVersion: 'virt:test',
      phaseTransitionTimestamps: [{ phase: 'Scheduling', phaseTransitionTimestamp: NOW }],
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'GuestNotRunning',
          message: 'Guest VM is not reported as running',
          lastProbeTime: NOW,
          lastTransitionTime: NOW,
        },
      ],
    });
  });

  it('the first write already carries what the Pod says (QoS, PodScheduled=False)', () => {
    const p = pod(
      (x) => ((x.status ??= {}).qosClass = 'Burstable'),
      withPodCondition({
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: 'no nodes',
      }),
    );
    const r = computeVmiStatus(input(vmi(), p));
    expect(r.vmi.status).toMatchObject({ phase: 'Scheduling', qosClass: 'Burstable' });
    expect(r.vmi.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'PodScheduled']);
  });

  it('hand-over: Scheduled with node name in status and label, QoS copied', () => {
    const p = pod(podReady('node-7'), (x) => ((x.status ??= {}).qosClass = 'Burstable'));
    const r = computeVmiStatus(input(vmi(withPhase('Scheduling')), p));
    expect(r.vmi.status).toMatchObject({ phase: 'Scheduled', nodeName: 'node-7', qosClass: 'Burstable' });
    expect(r.vmi.metadata.labels).toEqual({ 'kubevirt.io/nodeName': 'node-7' });
    expect(r.vmi.status?.phaseTransitionTimestamps?.map((t) => t.phase)).toEqual(['Scheduling', 'Scheduled']);
  });

  it('dedicated CPUs need Guaranteed QoS to hand over', () => {
    const v = vmi(
      withPhase('Scheduling'),
      (x) => (x.spec.domain.cpu = { cores: 2, dedicatedCpuPlacement: true }),
    );
    const r = computeVmiStatus(input(v, pod(podReady('n1'))));
    expect(r.vmi.status?.phase).toBe('Scheduling');
    expect(r.failure).toEqual({
      reason: 'FailedGuaranteePodResources',
      message: 'failed to guarantee pod resources',
    });
    expect(r.vmi.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Synchronized',
        status: 'False',
        reason: 'FailedGuaranteePodResources',
      }),
    );
  });

  it('mirrors PodScheduled=False and drops it once scheduled', () => {
    const p = pod(
      withPodCondition({
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/3 nodes',
      }),
    );
    const r = computeVmiStatus(input(vmi(withPhase('Scheduling')), p));
    expect(r.vmi.status?.conditions).toContainEqual({
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: '0/3 nodes',
    });
    const again = computeVmiStatus(
      input(r.vmi, pod(withPodCondition({ type: 'PodScheduled', status: 'True' }))),
    );
    expect(again.vmi.status?.conditions?.map((c) => c.type)).toEqual(['Ready']);
  });

  it('image pull errors become the Synchronized failure', () => {
    const p = pod(
      withContainer({
        name: 'compute',
        ready: false,
        state: { waiting: { reason: 'ImagePullBackOff', message: 'back-off pulling' } },
      }),
    );
    const r = computeVmiStatus(input(vmi(withPhase('Scheduling')), p));
    expect(r.vmi.status?.conditions).toContainEqual({
      type: 'Synchronized',
      status: 'False',
      reason: 'ImagePullBackOff',
      message: 'back-off pulling',
      lastTransitionTime: NOW,
    });
  });

  it('a sync failure is recorded once and cleared when the sync succeeds', () => {
    const failure = { reason: 'FailedCreate', message: 'quota' };
    const r = computeVmiStatus(input(vmi(), undefined, { failure }));
    expect(r.vmi.status?.conditions).toContainEqual({
      type: 'Synchronized',
      status: 'False',
      reason: 'FailedCreate',
      message: 'quota',
      lastTransitionTime: NOW,
    });
    const same = computeVmiStatus(input(r.vmi, undefined, { failure, nowMs: T0 + 60_000 }));
    expect(same.vmi.status?.conditions).toEqual(r.vmi.status?.conditions);
    const ok = computeVmiStatus(input(r.vmi, undefined));
    expect(ok.vmi.status?.conditions?.map((c) => c.type)).toEqual(['Ready']);
  });

  it.each<[string, Pod, string | undefined]>([
    ['pod terminating', pod(podReady('n1'), podDeleting), 'PodTerminating'],
    ['pod Ready condition copied', pod(podReady('n1')), undefined],
    ['pod Ready condition missing', pod(onNode('n1'), withPodPhase('Running')), 'PodConditionMissing'],
  ])('Ready of a Running VMI: %s', (_n, p, reason) => {
    const r = computeVmiStatus(input(vmi(withPhase('Running')), p));
    const ready = r.vmi.status?.conditions?.find((c) => c.type === 'Ready');
    if (reason === undefined) expect(ready).toEqual({ type: 'Ready', status: 'True' });
    else expect(ready?.reason).toBe(reason);
  });

  describe('a launcher Pod whose readiness probe fails', () => {
    const notReady = (p: Pod): void => {
      onNode('n1')(p);
      withPodPhase('Running')(p);
      withContainer({ name: 'compute', ready: false, image: 'virt:test', state: { running: {} } })(p);
      withPodCondition({
        type: 'Ready',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [compute]',
        lastTransitionTime: NOW,
      })(p);
    };

    it('is still handed over to the node: the probe asks the guest, which runs only once it is', () => {
      expect(computeVmiStatus(input(vmi(withPhase('Scheduling')), pod(notReady))).vmi.status?.phase).toBe(
        'Scheduled',
      );
    });

    it('makes a Running VMI not Ready, with the Pod’s reason and message', () => {
      const r = computeVmiStatus(input(vmi(withPhase('Running')), pod(notReady)));
      expect(r.vmi.status?.conditions?.find((c) => c.type === 'Ready')).toEqual({
        type: 'Ready',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [compute]',
        lastTransitionTime: NOW,
      });
    });
  });

  it('node-owned phases neither record transitions nor touch finalizers', () => {
    const r = computeVmiStatus(input(vmi(withPhase('Running')), undefined));
    expect(r.nodeOwned).toBe(true);
    expect(r.vmi.status?.phase).toBe('Failed');
    expect(r.vmi.status?.phaseTransitionTimestamps?.map((t) => t.phase)).toEqual(['Running']);
    expect(r.vmi.metadata.finalizers).toBeUndefined();
  });

  it.each<[string, Partial<VmiStatusInput>, string[]]>([
    ['final, pods gone: VMI finalizer dropped', { pods: [] }, [VM_FIN]],
    ['final, a pod left: kept', { pods: [pod()] }, [VMI_FIN, VM_FIN]],
    ['final, no owner VM: VM finalizer dropped too', { pods: [], ownerVmExists: false }, []],
  ])('%s', (_n, over, want) => {
    const v = vmi(
      withPhase('Failed'),
      withFinalizers(VMI_FIN, VM_FIN),
      (x) => ((x.status ??= {}).launcherContainerImageVersion = 'img'),
    );
    const r = computeVmiStatus(input(v, undefined, over));
    expect(r.vmi.metadata.finalizers).toEqual(want);
  });

  it('lists every controlled Pod in activePods', () => {
    const a = pod(onNode('n1'));
    const b = pod(onNode('n2'), (x) => (x.metadata.uid = 'pod-uid-2'));
    const r = computeVmiStatus(input(vmi(withPhase('Scheduling')), a, { pods: [a, b] }));
    expect(r.vmi.status?.activePods).toEqual({ 'pod-uid-1': 'n1', 'pod-uid-2': 'n2' });
  });

  it('does not touch its input', () => {
    const v = vmi(withVmiCondition('Ready', 'True'));
    const before = structuredClone(v);
    computeVmiStatus(input(v, pod(podReady('n1'))));
    expect(v).toEqual(before);
  });
});

describe('computeVmiStatus: interfaces', () => {
  /** The hashed Pod interface name of network `blue` (lib/network/namescheme.test.ts). */
  const BLUE_POD = 'pod16477688c0e';
  const withNetworks: (v: VirtualMachineInstance) => void = (v) => {
    v.spec.domain.devices.interfaces = [
      { name: 'default', masquerade: {} },
      { name: 'blue', bridge: {} },
    ];
    v.spec.networks = [
      { name: 'default', pod: {} },
      { name: 'blue', multus: { networkName: 'blue-net' } },
    ];
  };
  const podNetworks = [
    { interface: 'eth0', default: true },
    { interface: BLUE_POD, default: false },
  ];
  const fromPod = [
    { name: 'default', podInterfaceName: 'eth0' },
    { name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD },
  ];

  it.each<[string, VirtualMachineInstance, Pod | undefined, typeof fromPod | undefined]>([
    ['hand-over: from the Pod', vmi(withPhase('Scheduling'), withNetworks), pod(podReady('n1')), fromPod],
    ['Scheduling, Pod not ready: none yet', vmi(withPhase('Scheduling'), withNetworks), pod(), undefined],
    ['Scheduled: the node’s turn', vmi(withPhase('Scheduled'), withNetworks), pod(podReady('n1')), undefined],
    ['Running: from the Pod', vmi(withPhase('Running'), withNetworks), pod(podReady('n1')), fromPod],
    ['Running, Pod gone: left as they are', vmi(withPhase('Running'), withNetworks), undefined, undefined],
  ])('%s', (_n, v, p, want) => {
    expect(computeVmiStatus(input(v, p, { podNetworks })).vmi.status?.interfaces).toEqual(want);
  });

  it('Running: what the handler reported stays, the Pod’s side is added', () => {
    const v = vmi(withPhase('Running'), withNetworks, (x) => {
      (x.status ??= {}).interfaces = [
        { name: 'default', mac: '52:54:00:12:34:56', infoSource: 'domain', queueCount: 1, linkState: 'up' },
        { name: 'blue', mac: '02:00:00:00:00:02', infoSource: 'domain, guest-agent', interfaceName: 'eth1' },
      ];
    });
    expect(computeVmiStatus(input(v, pod(podReady('n1')), { podNetworks })).vmi.status?.interfaces).toEqual([
      {
        name: 'default',
        mac: '52:54:00:12:34:56',
        infoSource: 'domain',
        queueCount: 1,
        linkState: 'up',
        podInterfaceName: 'eth0',
      },
      {
        name: 'blue',
        mac: '02:00:00:00:00:02',
        infoSource: 'domain, guest-agent, multus-status',
        interfaceName: 'eth1',
        podInterfaceName: BLUE_POD,
      },
    ]);
  });
});

describe('computeVmiStatus: HotVCPUChange', () => {
  const topology = { sockets: 1, cores: 2, threads: 1 };
  const running = (sockets: number, maxSockets: number): VirtualMachineInstance =>
    vmi(withPhase('Running'), (x) => {
      x.spec.domain.cpu = { ...topology, sockets, maxSockets };
      (x.status ??= {}).currentCPUTopology = topology;
    });
  const hot = (v: VirtualMachineInstance): unknown =>
    v.status?.conditions?.find((c) => c.type === 'HotVCPUChange');

  it.each([
    { what: 'a socket more', v: running(2, 4), want: { type: 'HotVCPUChange', status: 'True' } },
    { what: 'the same count', v: running(1, 4), want: undefined },
    { what: 'no headroom', v: running(2, 0), want: undefined },
    {
      what: 'not running yet',
      v: vmi(withPhase('Scheduled'), (x) => {
        x.spec.domain.cpu = { ...topology, sockets: 2, maxSockets: 4 };
        (x.status ??= {}).currentCPUTopology = topology;
      }),
      want: undefined,
    },
  ])('$what', ({ v, want }) => {
    expect(hot(computeVmiStatus(input(v, pod(podReady('n1')))).vmi)).toEqual(want);
  });

  it('is added once and left as it is (the handler drops it)', () => {
    const v = running(2, 4);
    const failed = { type: 'HotVCPUChange', status: 'False' as const, reason: 'x' };
    (v.status ??= {}).conditions = [failed];
    expect(hot(computeVmiStatus(input(v, pod(podReady('n1')))).vmi)).toEqual(failed);
  });
});

describe('computeVmiStatus: HotMemoryChange', () => {
  const running = (guest: string, maxGuest: string | undefined, requested = '1Gi'): VirtualMachineInstance =>
    vmi(withPhase('Running'), (x) => {
      x.spec.domain.memory = { guest, ...(maxGuest !== undefined && { maxGuest }) };
      (x.status ??= {}).memory = { guestAtBoot: '1Gi', guestCurrent: requested, guestRequested: requested };
    });
  const hot = (v: VirtualMachineInstance): unknown =>
    v.status?.conditions?.find((c) => c.type === 'HotMemoryChange');

  it.each([
    { what: 'grown', v: running('1152Mi', '4Gi'), want: { type: 'HotMemoryChange', status: 'True' } },
    { what: 'the same size spelled otherwise', v: running('1024Mi', '4Gi'), want: undefined },
    { what: 'no headroom', v: running('2Gi', undefined), want: undefined },
    {
      what: 'not running yet',
      v: vmi(withPhase('Scheduled'), (x) => {
        x.spec.domain.memory = { guest: '2Gi', maxGuest: '4Gi' };
        (x.status ??= {}).memory = { guestAtBoot: '1Gi', guestRequested: '1Gi' };
      }),
      want: undefined,
    },
  ])('$what', ({ v, want }) => {
    expect(hot(computeVmiStatus(input(v, pod(podReady('n1')))).vmi)).toEqual(want);
  });
});
