/**
 * The VM and VMI controllers against a real kube-apiserver, through the rewriter rules (the API server stores
 * internal.virtualization.deckhouse.io names, the controllers speak kubevirt.io). The test plays kubelet and
 * virt-handler: it binds and readies launcher Pods, moves VMIs to Running, Failed or Succeeded, and
 * force-deletes Pods a kubelet would have removed. No garbage collector runs: the controllers delete VMIs and
 * Pods themselves, as KubeVirt's do.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../kubevirt/gvr.ts';
import { parseQuantity } from '../kubevirt/index.ts';
import type {
  RunStrategy,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstancePhase,
} from '../kubevirt/index.ts';
import { NODES, PODS } from '../kernel/kube/index.ts';
import type { WatchEvent } from '../kernel/kube/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import {
  FakeKubelet,
  startControllerEnv,
  vmiOf,
  vmiWhere as vmiWhereIn,
  type ControllerEnv,
} from './testing/cluster.ts';

let env: ControllerEnv;
let kubelet: FakeKubelet;

beforeAll(async () => {
  env = await startControllerEnv('controller');
  kubelet = new FakeKubelet(env.kv, env.ns);
});
afterAll(async () => {
  await env.close();
});

function newVm(name: string, runStrategy: RunStrategy): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name, namespace: env.ns },
    spec: {
      runStrategy,
      template: {
        metadata: { labels: { app: name } },
        spec: {
          domain: {
            cpu: { cores: 1 },
            resources: { requests: { memory: '128Mi' } },
            devices: { interfaces: [{ name: 'default', masquerade: {} }] },
          },
          networks: [{ name: 'default', pod: {} }],
        },
      },
    },
  };
}

const getVm = (name: string): Promise<VirtualMachine> =>
  env.kv.get<VirtualMachine>(VIRTUAL_MACHINES, name, { namespace: env.ns });

const getVmi = (name: string): Promise<VirtualMachineInstance | undefined> => vmiOf(env, name);

async function podsOf(vmi: VirtualMachineInstance): Promise<Pod[]> {
  const list = await env.kv.list<Pod>(PODS, {
    namespace: env.ns,
    labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`,
  });
  return list.items;
}

const vmiWhere = (
  name: string,
  what: string,
  pred: (v: VirtualMachineInstance) => boolean,
): Promise<VirtualMachineInstance> => vmiWhereIn(env, name, what, pred);

const vmWhere = (name: string, what: string, pred: (v: VirtualMachine) => boolean): Promise<VirtualMachine> =>
  waitFor(async () => {
    const v = await getVm(name);
    return pred(v) ? v : undefined;
  }, `VM ${name}: ${what}`);

const podOf = (vmi: VirtualMachineInstance): Promise<Pod> =>
  waitFor(async () => (await podsOf(vmi))[0], `launcher Pod of ${vmi.metadata.name ?? ''}`);

const gone = (name: string): Promise<true> =>
  waitFor(async () => ((await getVmi(name)) === undefined ? true : undefined), `VMI ${name} gone`);

/** As virt-handler would: phase (with its transition history) on the VMI. */
async function setVmiPhase(name: string, phases: VirtualMachineInstancePhase[]): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const vmi = await getVmi(name);
  const history = [...(vmi?.status?.phaseTransitionTimestamps ?? [])];
  for (const p of phases) history.push({ phase: p, phaseTransitionTimestamp: now });
  await env.kv.patch(
    VIRTUAL_MACHINE_INSTANCES,
    name,
    { status: { phase: phases.at(-1), phaseTransitionTimestamps: history } },
    { namespace: env.ns, type: 'merge' },
  );
}

async function setRunStrategy(name: string, runStrategy: RunStrategy): Promise<void> {
  await env.kv.patch(VIRTUAL_MACHINES, name, { spec: { runStrategy } }, { namespace: env.ns, type: 'merge' });
}

function expectLauncherPod(pod: Pod, vmi: VirtualMachineInstance): void {
  expect(pod.metadata.ownerReferences).toEqual([
    {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      name: 'always',
      uid: vmi.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  expect(pod.metadata.labels).toMatchObject({
    app: 'always',
    'kubevirt.io': 'virt-launcher',
    'kubevirt.io/created-by': vmi.metadata.uid,
  });
  expect(pod.spec['nodeSelector']).toEqual({ 'kubevirt.io/schedulable': 'true' });
  const compute = pod.spec.containers[0];
  expect(compute?.command?.slice(0, 10)).toEqual([
    '/usr/bin/tini',
    '--',
    'virt',
    'launcher',
    '--name',
    'always',
    '--namespace',
    env.ns,
    '--uid',
    vmi.metadata.uid,
  ]);
  expect(compute?.resources?.limits).toMatchObject({
    'devices.virtualization.deckhouse.io/kvm': '1',
    'devices.virtualization.deckhouse.io/tun': '1',
    'devices.virtualization.deckhouse.io/vhost-net': '1',
  });
  expect(parseQuantity(compute?.resources?.requests?.['memory'] ?? '0')).toBeGreaterThan(
    128 * 2 ** 20 + 200 * 2 ** 20,
  );
}

describe('controller against kube-apiserver', () => {
  it('Always: a VMI and a launcher Pod with the right owners, labels and resources; the VMI follows the Pod', async () => {
    const vm = await env.kv.create(VIRTUAL_MACHINES, newVm('always', 'Always'));
    const vmi = await vmiWhere('always', 'Scheduling', (v) => v.status?.phase === 'Scheduling');
    expect(vmi.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        name: 'always',
        uid: vm.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(vmi.metadata.labels).toEqual({ app: 'always' });
    expect(vmi.metadata.finalizers).toEqual([
      'kubevirt.io/virtualMachineControllerFinalize',
      'foregroundDeleteVirtualMachine',
    ]);
    expect(vmi.spec.domain.firmware?.uuid).toMatch(/^[0-9a-f-]{36}$/);

    const pod = await podOf(vmi);
    expectLauncherPod(pod, vmi);

    await kubelet.bind(pod, 'node-a');
    await kubelet.ready(await podOf(vmi));
    const scheduled = await vmiWhere('always', 'Scheduled', (v) => v.status?.phase === 'Scheduled');
    expect(scheduled.status?.nodeName).toBe('node-a');
    expect(scheduled.metadata.labels?.['kubevirt.io/nodeName']).toBe('node-a');
    expect(scheduled.status?.phaseTransitionTimestamps?.map((t) => t.phase)).toEqual([
      'Scheduling',
      'Scheduled',
    ]);
    const status = await vmWhere(
      'always',
      'created, Starting',
      (v) => v.status?.created === true && v.status.printableStatus === 'Starting',
    );
    expect(status.metadata.finalizers).toEqual(['kubevirt.io/virtualMachineControllerFinalize']);

    // Stop: Halted deletes the VMI; the controller deletes its Pod, the "kubelet" finishes the deletion.
    await setRunStrategy('always', 'Halted');
    const terminating = await waitFor(
      async () => (await podsOf(vmi)).find((p) => p.metadata.deletionTimestamp !== undefined),
      'launcher Pod deleted',
    );
    await kubelet.remove(terminating);
    await gone('always');
    await vmWhere(
      'always',
      'Stopped',
      (v) => v.status?.printableStatus === 'Stopped' && v.status.created === false,
    );
    expect(await podsOf(vmi)).toEqual([]);
  });

  it('RerunOnFailure restarts after a failure only', async () => {
    await env.kv.create(VIRTUAL_MACHINES, newVm('rerun', 'RerunOnFailure'));
    const first = await vmiWhere('rerun', 'created', (v) => v.status?.phase === 'Scheduling');
    await podOf(first);
    await setVmiPhase('rerun', ['Scheduled', 'Running']);
    await setVmiPhase('rerun', ['Failed']);
    const second = await vmiWhere(
      'rerun',
      'restarted',
      (v) => v.metadata.uid !== first.metadata.uid && v.status?.phase === 'Scheduling',
    );
    await podOf(second);
    await setVmiPhase('rerun', ['Scheduled', 'Running']);
    await setVmiPhase('rerun', ['Succeeded']);
    await gone('rerun');
    const vm = await vmWhere('rerun', 'Stopped', (v) => v.status?.printableStatus === 'Stopped');
    expect(vm.status?.stateChangeRequests).toBeUndefined();
    await new Promise((r) => setTimeout(r, 2000));
    expect(await getVmi('rerun')).toBeUndefined();
  });

  it('Once never restarts', async () => {
    await env.kv.create(VIRTUAL_MACHINES, newVm('once', 'Once'));
    const vmi = await vmiWhere('once', 'created', (v) => v.status?.phase === 'Scheduling');
    await podOf(vmi);
    await setVmiPhase('once', ['Scheduled', 'Running']);
    await setVmiPhase('once', ['Failed']);
    await vmWhere('once', 'Stopped', (v) => v.status?.printableStatus === 'Stopped');
    await new Promise((r) => setTimeout(r, 2000));
    const after = await getVmi('once');
    expect(after?.metadata.uid).toBe(vmi.metadata.uid);
    expect(after?.status?.phase).toBe('Failed');
    expect(after?.metadata.finalizers).not.toContain('kubevirt.io/virtualMachineControllerFinalize');
  });

  it('a crash loop backs off: the restart waits for startFailure.retryAfterTimestamp', async () => {
    await env.kv.create(VIRTUAL_MACHINES, newVm('crashy', 'Always'));
    const first = await vmiWhere('crashy', 'created', (v) => v.status?.phase === 'Scheduling');
    await setVmiPhase('crashy', ['Failed']);
    const backoff = await vmWhere(
      'crashy',
      'CrashLoopBackOff',
      (v) => v.status?.printableStatus === 'CrashLoopBackOff',
    );
    const failure = backoff.status?.startFailure;
    expect(failure?.consecutiveFailCount).toBe(1);
    expect(failure?.lastFailedVMIUID).toBe(first.metadata.uid);
    const retryAt = Date.parse(failure?.retryAfterTimestamp ?? '');
    const second = await waitFor(
      async () => {
        const v = await getVmi('crashy');
        return v !== undefined && v.metadata.uid !== first.metadata.uid ? v : undefined;
      },
      'restart after the backoff',
      { timeoutMs: 40_000 },
    );
    expect(Date.parse(second.metadata.creationTimestamp ?? '')).toBeGreaterThanOrEqual(retryAt - 1000);
    await setRunStrategy('crashy', 'Halted');
    await gone('crashy');
  });

  it('100 concurrent VM updates never yield two VMIs (or two Pods) for one VM', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    const events: WatchEvent<VirtualMachineInstance>[] = [];
    const ac = new AbortController();
    const watching = (async (): Promise<void> => {
      for await (const ev of env.kv.watch<VirtualMachineInstance>(
        VIRTUAL_MACHINE_INSTANCES,
        { namespace: env.ns },
        ac.signal,
      ))
        events.push(ev);
    })();
    await Promise.all(names.map((n) => env.kv.create(VIRTUAL_MACHINES, newVm(n, 'Always'))));
    const updates = names.flatMap((n) => Array.from({ length: 5 }, (_, j) => ({ n, j })));
    await Promise.all(
      updates.map(({ n, j }) =>
        env.kv.patch(
          VIRTUAL_MACHINES,
          n,
          { metadata: { labels: { [`touch-${j}`]: 'x' } } },
          { namespace: env.ns, type: 'merge' },
        ),
      ),
    );
    const vmis = await Promise.all(
      names.map((n) => vmiWhere(n, 'Scheduling', (v) => v.status?.phase === 'Scheduling')),
    );
    for (const v of vmis) expect(await podsOf(v)).toHaveLength(1);
    ac.abort();
    await watching;
    const added = events.filter(
      (e) => e.type === 'ADDED' && e.object.metadata.name?.startsWith('burst-') === true,
    );
    expect(added.map((e) => e.object.metadata.name).sort()).toEqual([...names].sort());
    expect(events.filter((e) => e.type === 'DELETED')).toEqual([]);
  });

  it('a node whose handler stopped heartbeating: unschedulable, and its VMI without a live launcher Failed', async () => {
    const nodeName = `dead-${env.ns}`;
    const stale = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    // Through the rewriter, as virt-handler writes it: the stored names of kubevirt.io labels differ.
    await env.kv.create(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName,
        labels: { 'kubevirt.io/schedulable': 'true' },
        annotations: { 'kubevirt.io/heartbeat': stale },
      },
    });
    try {
      const bare = newVm('on-dead-node', 'Always').spec.template;
      await env.kv.create(VIRTUAL_MACHINE_INSTANCES, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'on-dead-node', namespace: env.ns },
        spec: bare.spec,
      });
      const vmi = await vmiWhere('on-dead-node', 'Scheduling', (v) => v.status?.phase === 'Scheduling');
      const pod = await podOf(vmi);
      await kubelet.bind(pod, nodeName);
      await kubelet.ready(await podOf(vmi));
      await vmiWhere('on-dead-node', 'Scheduled', (v) => v.status?.phase === 'Scheduled');
      // The launcher dies with its node's handler gone: nothing on the node reports it.
      await kubelet.fail(await podOf(vmi));
      const failed = await vmiWhere('on-dead-node', 'Failed', (v) => v.status?.phase === 'Failed');
      expect(failed.status?.reason).toBe('NodeUnresponsive');
      const node = await env.kv.get(NODES, nodeName);
      expect(node.metadata.labels?.['kubevirt.io/schedulable']).toBe('false');
    } finally {
      await env.kv.delete(NODES, nodeName);
    }
  });
});
