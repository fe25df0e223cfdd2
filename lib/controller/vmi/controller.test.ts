import { beforeEach, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { harness, vmiController, type Harness } from '../testing/harness.ts';
import { alreadyExists, forbidden } from '../../kernel/kube/testing/recording-client.ts';
import {
  onNode,
  pod,
  podDeleting,
  podReady,
  vm,
  vmi,
  vmiDeleting,
  withPhase,
  withPodPhase,
} from '../../kubevirt/testing/objects.ts';
import { attachmentPod, attachReady, bound, pvc, withHotplugVolume } from '../testing/storage-fixtures.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { currentPod, type VmiController } from './controller.ts';
import { podHandler } from './handlers.ts';
import { launcherPodName } from './launcher-pod.ts';
import { VmiMetrics } from './metrics.ts';

const KEY = 'default/testvm';
let h: Harness;
let c: VmiController;
let registry: Registry;

beforeEach(() => {
  h = harness();
  registry = new Registry();
  c = vmiController(h, { metrics: new VmiMetrics(registry) });
  h.vms.add(vm());
});

const run = (): Promise<unknown> => c.reconcile(KEY, h.ctx);
const body = (n: number): Record<string, unknown> => h.client.actions[n]?.body as Record<string, unknown>;
const launcherOf = (v: VirtualMachineInstance, ...opts: ((p: Pod) => void)[]): Pod =>
  pod((p) => (p.metadata.name = launcherPodName(v)), ...opts);
/** A migration's target launcher Pod, created after the source. */
const target = (...opts: ((p: Pod) => void)[]): Pod =>
  pod(
    (p) => {
      p.metadata.name = 'virt-launcher-testvm-abcde';
      p.metadata.uid = 'target-uid';
      p.metadata.creationTimestamp = '2026-01-01T00:05:00Z';
      p.metadata.labels = { ...p.metadata.labels, 'kubevirt.io/migrationJobUID': 'mig-uid-1' };
    },
    ...opts,
  );

describe('VmiController', () => {
  it('new VMI: creates its launcher Pod, then one write moves it to Scheduling', async () => {
    const v = vmi();
    h.vmis.add(v);
    await run();
    expect(h.client.log).toEqual([
      `create pods default/${launcherPodName(v)}`,
      'patch virtualmachineinstances default/testvm',
    ]);
    expect(body(0)).toMatchObject({
      metadata: {
        labels: { 'kubevirt.io': 'virt-launcher', 'kubevirt.io/created-by': 'vmi-uid-1' },
        ownerReferences: [{ kind: 'VirtualMachineInstance', uid: 'vmi-uid-1', controller: true }],
      },
    });
    expect(body(1)).toMatchObject({
      metadata: { finalizers: ['foregroundDeleteVirtualMachine'], resourceVersion: '20' },
      status: { phase: 'Scheduling' },
    });
    expect(h.recorder.events.map((e) => `${e.kind} ${e.reason}`)).toEqual([
      'VirtualMachineInstance SuccessfulCreate',
    ]);
    const metrics = await registry.getSingleMetricAsString(
      'kubevirt_vmi_phase_transition_time_from_creation_seconds',
    );
    expect(metrics).toContain('phase="Scheduling"');
  });

  it('never creates a second Pod before the first is observed', async () => {
    h.vmis.add(vmi());
    await run();
    h.vmis.add(vmi((x) => (x.metadata.resourceVersion = '21')));
    await run();
    expect(h.client.log.filter((a) => a.startsWith('create'))).toHaveLength(1);
  });

  it('the Pod add event satisfies the expectation', async () => {
    const v = vmi();
    h.vmis.add(v);
    await run();
    podHandler(c, { vmis: h.vmis, pods: h.pods }, () => undefined).onAdd?.(launcherOf(v));
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
  });

  it('skips the sync while the cache holds the VMI version it wrote from', async () => {
    const v = vmi(withPhase('Scheduling'));
    h.vmis.add(v);
    h.pods.add(launcherOf(v, podReady('n1')));
    await run();
    expect(h.client.log).toEqual(['patch virtualmachineinstances default/testvm']);
    await run();
    expect(h.client.log).toHaveLength(1);
  });

  it('ready Pod: hands the VMI over (Scheduled, node name and label)', async () => {
    const v = vmi(
      withPhase('Scheduling'),
      (x) => (x.metadata.finalizers = ['foregroundDeleteVirtualMachine']),
    );
    h.vmis.add(v);
    h.pods.add(launcherOf(v, podReady('node-3')));
    await run();
    expect(body(0)).toMatchObject({
      metadata: { labels: { 'kubevirt.io/nodeName': 'node-3' } },
      status: { phase: 'Scheduled', nodeName: 'node-3' },
    });
  });

  it('Scheduled VMI whose Pod vanished: only node-shared fields are patched (phase Failed)', async () => {
    const v = vmi(
      withPhase('Scheduled'),
      (x) => (x.status = { ...x.status, nodeName: 'n1', activePods: { 'pod-uid-1': 'n1' } }),
    );
    h.vmis.add(v);
    await run();
    const b = body(0) as { status: Record<string, unknown>; metadata: Record<string, unknown> };
    expect(b.status['phase']).toBe('Failed');
    expect(b.status['phaseTransitionTimestamps']).toBeUndefined();
    expect(b.metadata['finalizers']).toBeUndefined();
    expect(h.recorder.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning Failed']);
  });

  it('VMI being deleted: deletes its live Pods and fails the VMI once they are gone', async () => {
    const v = vmi(
      withPhase('Scheduling'),
      vmiDeleting,
      (x) => (x.metadata.finalizers = ['foregroundDeleteVirtualMachine']),
    );
    h.vmis.add(v);
    h.pods.add(launcherOf(v, onNode('n1')));
    await run();
    expect(h.client.log[0]).toBe(`delete pods default/${launcherPodName(v)}`);
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(false);
  });

  it('Failed VMI without Pods: drops its finalizer', async () => {
    const v = vmi(
      withPhase('Failed'),
      (x) =>
        (x.metadata.finalizers = [
          'foregroundDeleteVirtualMachine',
          'kubevirt.io/virtualMachineControllerFinalize',
        ]),
    );
    h.vmis.add(v);
    await run();
    expect(body(0)).toMatchObject({
      metadata: { finalizers: ['kubevirt.io/virtualMachineControllerFinalize'] },
    });
  });

  it('Pod creation refused: Synchronized False, Warning event, retried', async () => {
    h.vmis.add(vmi());
    h.client.failNext('create', 'pods', forbidden('pods "x" is forbidden: exceeded quota'));
    await expect(run()).rejects.toThrow(/exceeded quota/);
    expect(body(1)).toMatchObject({
      status: {
        phase: 'Pending',
        conditions: expect.arrayContaining([
          expect.objectContaining({ type: 'Synchronized', status: 'False', reason: 'FailedCreate' }),
        ]),
      },
    });
    expect(h.recorder.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning FailedCreate']);
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
  });

  it('a host device the KubeVirt CR does not permit: no Pod, Synchronized False, retried', async () => {
    h.kubevirts.add({
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'config', namespace: 'd8-virtualization', uid: 'kv-uid' },
      spec: {
        configuration: {
          permittedHostDevices: {
            pciHostDevices: [{ pciVendorSelector: '10de:1eb8', resourceName: 'nvidia.com/T4' }],
          },
        } as NonNullable<KubeVirt['spec']['configuration']>,
      },
    });
    const withDevice = (deviceName: string) => (x: VirtualMachineInstance) => {
      x.spec.domain.devices.hostDevices = [{ name: 'h', deviceName }];
    };
    h.vmis.add(vmi(withDevice('nvidia.com/A100')));
    await expect(run()).rejects.toThrow(/not permitted/);
    expect(h.client.log).toEqual(['patch virtualmachineinstances default/testvm']);
    const message =
      'failed to render launch manifest: HostDevice nvidia.com/A100 is not permitted in permittedHostDevices configuration';
    expect(body(0)).toMatchObject({
      status: {
        conditions: expect.arrayContaining([
          expect.objectContaining({ type: 'Synchronized', status: 'False', reason: 'FailedCreate', message }),
        ]),
      },
    });

    h.vmis.add(vmi(withDevice('nvidia.com/T4'), (x) => (x.metadata.resourceVersion = '21')));
    await run();
    const pod = h.client.actions.find((a) => a.verb === 'create')?.body as Pod | undefined;
    expect(pod?.spec.containers[0]?.resources).toMatchObject({ limits: { 'nvidia.com/T4': '1' } });
  });

  it('Pod AlreadyExists (stale cache): no error, waits for the cache', async () => {
    h.vmis.add(vmi());
    h.client.failNext('create', 'pods', alreadyExists());
    await expect(run()).resolves.toBeUndefined();
    expect(h.recorder.events).toEqual([]);
  });

  it('nothing changed: no write', async () => {
    const v = vmi(withPhase('Scheduling'));
    h.vmis.add(v);
    h.pods.add(launcherOf(v));
    await run();
    const patched = body(0) as {
      status: VirtualMachineInstance['status'];
      metadata: { finalizers: string[] };
    };
    h.vmis.add(
      vmi(withPhase('Scheduling'), (x) => {
        x.status = { ...x.status, ...patched.status };
        x.metadata.finalizers = patched.metadata.finalizers;
        x.metadata.resourceVersion = '77';
      }),
    );
    h.client.actions.length = 0;
    await run();
    expect(h.client.log).toEqual([]);
  });

  it('a deleted VMI drops its expectations', async () => {
    c.podExpectations.expectCreations(KEY, 1);
    await run();
    expect(c.podExpectations.satisfiedExpectations(KEY)).toBe(true);
  });
});

/** A Pod of namespace `b` that names the VMI (or its launcher Pod) as its controller. */
const impostor = (...opts: ((p: Pod) => void)[]): Pod =>
  pod(
    (p) => {
      p.metadata.namespace = 'b';
      p.metadata.name = 'impostor';
      p.metadata.uid = 'impostor-uid';
      p.metadata.creationTimestamp = '2026-01-01T00:05:00Z';
    },
    ...opts,
  );

describe('VmiController: Pods of other namespaces', () => {
  it("a ready Pod elsewhere naming the VMI's uid neither takes the VMI over nor joins activePods", async () => {
    const v = vmi(withPhase('Scheduling'));
    h.vmis.add(v);
    h.pods.add(launcherOf(v, onNode('n1')));
    h.pods.add(impostor(podReady('evil')));
    await run();
    const b = body(0) as { status: NonNullable<VirtualMachineInstance['status']> };
    expect(b.status.activePods).toEqual({ 'pod-uid-1': 'n1' });
    expect(b.status.phase).toBeUndefined();
    expect(b.status.nodeName).toBeUndefined();
  });

  it('a VMI being deleted deletes only the Pods of its own namespace', async () => {
    const v = vmi(withPhase('Scheduling'), vmiDeleting);
    h.vmis.add(v);
    h.pods.add(launcherOf(v, onNode('n1')));
    h.pods.add(impostor(onNode('n1')));
    await run();
    expect(h.client.log.filter((a) => a.startsWith('delete'))).toEqual([
      `delete pods default/${launcherPodName(v)}`,
    ]);
  });

  it("an attachment Pod elsewhere naming the launcher Pod's uid is neither deleted nor in volumeStatus", async () => {
    const v = vmi(withPhase('Running'), withHotplugVolume('hp', 'hp'), (x) => {
      x.status = { ...x.status, nodeName: 'n1', activePods: { 'pod-uid-1': 'n1' } };
    });
    h.vmis.add(v);
    h.pvcs.add(pvc('hp', bound));
    h.pods.add(launcherOf(v, podReady('n1')));
    h.pods.add(attachmentPod('foreign', ['hp'], attachReady, (p) => (p.metadata.namespace = 'b')));
    await run();
    expect(h.client.log.filter((a) => a.startsWith('delete'))).toEqual([]);
    const created = h.client.actions.find((a) => a.verb === 'create');
    expect(created?.key).toMatch(/^default\//);
    const statuses = h.client.actions.flatMap(
      (a) =>
        (a.body as { status?: VirtualMachineInstance['status'] } | undefined)?.status?.volumeStatus ?? [],
    );
    expect(statuses.map((s) => s.hotplugVolume?.attachPodName)).not.toContain('foreign');
  });
});

describe('VmiController: interfaces from the Multus network-status', () => {
  const running = (): VirtualMachineInstance =>
    vmi(withPhase('Running'), (x) => {
      x.spec.domain.devices.interfaces = [{ name: 'blue', bridge: {} }];
      x.spec.networks = [{ name: 'blue', multus: { networkName: 'blue-net' } }];
      x.status = {
        ...x.status,
        nodeName: 'n1',
        activePods: { 'pod-uid-1': 'n1' },
        interfaces: [{ name: 'blue', mac: '02:00:00:00:00:02', infoSource: 'domain' }],
      };
    });
  const annotated = (raw: string) => (p: Pod) => {
    p.metadata.annotations = { 'k8s.v1.cni.cncf.io/network-status': raw };
  };

  it('a Running VMI gets multus-status and the Pod interface in one patch', async () => {
    const v = running();
    h.vmis.add(v);
    h.pods.add(
      launcherOf(v, podReady('n1'), annotated('[{"name":"default/blue-net","interface":"pod16477688c0e"}]')),
    );
    await run();
    expect(h.client.log).toEqual(['patch virtualmachineinstances default/testvm']);
    expect((body(0) as { status: VirtualMachineInstance['status'] }).status?.interfaces).toEqual([
      {
        name: 'blue',
        mac: '02:00:00:00:00:02',
        infoSource: 'domain, multus-status',
        podInterfaceName: 'pod16477688c0e',
      },
    ]);
  });

  it('an unreadable annotation counts as none and is logged by a short reason only', async () => {
    const memory = memoryLogger();
    const v = running();
    h.vmis.add(v);
    h.pods.add(launcherOf(v, podReady('n1'), annotated('{"secret-value": [')));
    await expect(c.reconcile(KEY, { log: memory.log, reconcileID: 'test' })).resolves.toBeUndefined();
    expect((body(0) as { status: VirtualMachineInstance['status'] }).status?.interfaces).toEqual([
      { name: 'blue', mac: '02:00:00:00:00:02', infoSource: 'domain', podInterfaceName: 'pod16477688c0e' },
    ]);
    const warned = memory.lines.filter((l) => l['level'] === 'warning');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ reason: 'not JSON' });
    expect(JSON.stringify(memory.lines)).not.toContain('secret-value');
  });
});

describe('currentPod', () => {
  const older = pod((p) => (p.metadata.creationTimestamp = '2026-01-01T00:00:00Z'), onNode('a'));
  const newer = pod(
    (p) => ((p.metadata.uid = 'p2'), (p.metadata.creationTimestamp = '2026-01-01T00:01:00Z')),
    onNode('b'),
  );
  it.each<[string, VirtualMachineInstance, Pod[], Pod | undefined]>([
    ['none', vmi(), [], undefined],
    ['newest without a node yet', vmi(), [older, newer], newer],
    ['on the VMI node', vmi((v) => (v.status = { nodeName: 'a' })), [older, newer], older],
    ['none on the VMI node', vmi((v) => (v.status = { nodeName: 'c' })), [older, newer], undefined],
    ['a deleting Pod still counts', vmi(), [pod(podDeleting)], pod(podDeleting)],
    ['a newer migration target without a node never counts', vmi(), [older, target()], older],
    ['a migration target alone, VMI without a node: none', vmi(), [target()], undefined],
    [
      'the target on another node than the VMI',
      vmi((v) => (v.status = { nodeName: 'a' })),
      [older, target(onNode('b'))],
      older,
    ],
    [
      'the target on the VMI node: the guest moved there',
      vmi((v) => (v.status = { nodeName: 'b' })),
      [older, target(onNode('b'))],
      target(onNode('b')),
    ],
  ])('%s', (_n, v, pods, want) => {
    expect(currentPod(v, pods)).toEqual(want);
  });
});

describe('a running VMI with a migration target Pod', () => {
  const onVmiNode = (node: string) => (v: VirtualMachineInstance) => {
    (v.status ??= {}).nodeName = node;
  };
  const source = (...opts: ((p: Pod) => void)[]): Pod =>
    launcherOf(vmi(), (p) => (p.metadata.creationTimestamp = '2026-01-01T00:00:00Z'), ...opts);
  it.each<[string, VirtualMachineInstance, Pod[], string | undefined]>([
    [
      'target pending without a node: stays Running',
      vmi(withPhase('Running'), onVmiNode('n1')),
      [source(podReady('n1')), target()],
      undefined,
    ],
    [
      'target ready on n2: stays Running',
      vmi(withPhase('Running'), onVmiNode('n1')),
      [source(podReady('n1')), target(podReady('n2'))],
      undefined,
    ],
    [
      'moved to n2, source done on n1: stays Running',
      vmi(withPhase('Running'), onVmiNode('n2')),
      [source(podReady('n1'), withPodPhase('Succeeded')), target(podReady('n2'))],
      undefined,
    ],
    [
      'source gone while still on n1: Failed (the target is no launcher yet)',
      vmi(withPhase('Running'), onVmiNode('n1')),
      [target(podReady('n2'))],
      'Failed',
    ],
  ])('%s', async (_n, v, pods, want) => {
    h.vmis.add(v);
    for (const p of pods) h.pods.add(p);
    await run();
    const written = h.client.actions.map(
      (a) => (a.body as { status?: { phase?: string } } | undefined)?.status?.phase,
    );
    expect(written.find((p) => p !== undefined)).toBe(want);
  });
});
