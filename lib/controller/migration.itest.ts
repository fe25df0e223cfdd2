/**
 * Live migration's control plane against a real kube-apiserver, through the rewriter rules: the migration
 * controller drives a VirtualMachineInstanceMigration through its phases while the test plays kubelet (binds,
 * readies and fails Pods) and both virt-handlers (writes what they write into the VMI's migrationState).
 * Also: a failed target, a cancel after the hand-off, one migration per VMI at a time, the cluster limit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
} from '../kubevirt/gvr.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../kubevirt/index.ts';
import { isNotFound } from '../kernel/errors/errors.ts';
import { PODS } from '../kernel/kube/index.ts';
import type { KubeObject } from '../kernel/kube/index.ts';
import { POD_DISRUPTION_BUDGETS } from '../kernel/kube/resources.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { sleep, waitFor } from '../kernel/testing/wait.ts';
import { FakeKubelet, startControllerEnv, vmiWhere, type ControllerEnv } from './testing/cluster.ts';

let env: ControllerEnv;
let kubelet: FakeKubelet;
const SOURCE = 'node-a';
const TARGET = 'node-b';

beforeAll(async () => {
  env = await startControllerEnv('migration');
  kubelet = new FakeKubelet(env.kv, env.ns);
});
afterAll(async () => {
  await env.close();
});

type Migration = VirtualMachineInstanceMigration;

const podsLabelled = async (selector: string): Promise<Pod[]> =>
  (await env.kv.list<Pod>(PODS, { namespace: env.ns, labelSelector: selector })).items;

async function migrationOf(name: string): Promise<Migration | undefined> {
  try {
    return await env.kv.get<Migration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, name, { namespace: env.ns });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const migrationWhere = (name: string, what: string, pred: (m: Migration) => boolean): Promise<Migration> =>
  waitFor(
    async () => {
      const m = await migrationOf(name);
      return m !== undefined && pred(m) ? m : undefined;
    },
    () => `migration ${name}: ${what}`,
  );

const inPhase = (name: string, phase: string): Promise<Migration> =>
  migrationWhere(name, phase, (m) => m.status?.phase === phase);

/** A VMI whose launcher Pod runs on SOURCE, moved to Running as its handler would. */
async function runningVmi(name: string): Promise<{ vmi: VirtualMachineInstance; launcher: Pod }> {
  await env.kv.create(VIRTUAL_MACHINE_INSTANCES, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: env.ns },
    spec: { domain: { resources: { requests: { memory: '128Mi' } }, devices: {} } },
  });
  const scheduling = await vmiWhere(env, name, 'Scheduling', (v) => v.status?.phase === 'Scheduling');
  const selector = `kubevirt.io/created-by=${scheduling.metadata.uid ?? ''}`;
  const launcher = await waitFor(async () => (await podsLabelled(selector))[0], `launcher Pod of ${name}`);
  await kubelet.bind(launcher, SOURCE);
  await kubelet.ready(launcher);
  await vmiWhere(env, name, 'Scheduled', (v) => v.status?.phase === 'Scheduled');
  await patchVmiStatus(name, { phase: 'Running' });
  const vmi = await vmiWhere(env, name, 'Running', (v) => v.status?.phase === 'Running');
  return { vmi, launcher };
}

async function patchVmiStatus(name: string, status: Record<string, unknown>): Promise<void> {
  await env.kv.patch(VIRTUAL_MACHINE_INSTANCES, name, { status }, { namespace: env.ns, type: 'merge' });
}

/** What a handler writes into the VMI's migrationState. */
const writeState = (name: string, state: Record<string, unknown>): Promise<void> =>
  patchVmiStatus(name, { migrationState: state });

async function createMigration(name: string, vmiName: string): Promise<Migration> {
  return env.kv.create<Migration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name, namespace: env.ns },
    spec: { vmiName },
  });
}

const targetPodOf = (m: Migration): Promise<Pod> =>
  waitFor(
    async () => (await podsLabelled(`kubevirt.io/migrationJobUID=${m.metadata.uid ?? ''}`))[0],
    `target Pod of ${m.metadata.name ?? ''}`,
  );

const targetPodsOf = async (m: Migration): Promise<Pod[]> =>
  podsLabelled(`kubevirt.io/migrationJobUID=${m.metadata.uid ?? ''}`);

/** The target Pod runs on TARGET, as the scheduler and kubelet would make it. */
async function runTarget(m: Migration): Promise<Pod> {
  const pod = await targetPodOf(m);
  await kubelet.bind(pod, TARGET);
  await kubelet.ready(pod);
  return pod;
}

/** The target Pod fails; once the controller deletes it, the kubelet lets it go. */
async function failTarget(m: Migration): Promise<void> {
  const pod = await targetPodOf(m);
  await kubelet.fail(pod);
  await waitFor(
    async () => {
      const [p] = await targetPodsOf(m);
      if (p === undefined) return true;
      if (p.metadata.deletionTimestamp !== undefined) await kubelet.remove(p);
      return false;
    },
    `target Pod of ${m.metadata.name ?? ''} deleted`,
  );
}

/** The target Pod: labelled with the migration, owned by the VMI, kept off the node of the VMI's Pods. */
function expectTargetPod(target: Pod, created: Migration, vmi: VirtualMachineInstance): void {
  expect(target.metadata.labels?.['kubevirt.io/migrationJobUID']).toBe(created.metadata.uid);
  expect(target.metadata.annotations?.['kubevirt.io/migrationJobName']).toBe('mig-ok');
  expect(target.metadata.ownerReferences?.[0]).toMatchObject({
    kind: 'VirtualMachineInstance',
    uid: vmi.metadata.uid,
  });
  expect(target.spec['affinity']).toEqual({
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: { matchLabels: { 'kubevirt.io/created-by': vmi.metadata.uid } },
          topologyKey: 'kubernetes.io/hostname',
        },
      ],
    },
  });
}

describe('migration controller against kube-apiserver', () => {
  it('drives a migration from Pending to Succeeded as the handlers report', async () => {
    const { vmi, launcher } = await runningVmi('vm-ok');
    const created = await createMigration('mig-ok', 'vm-ok');

    // Scheduling: the target Pod, labelled with the migration uid, kept off the VMI's other Pods' node.
    const scheduling = await inPhase('mig-ok', 'Scheduling');
    expect(scheduling.metadata.finalizers).toContain('kubevirt.io/migrationJobFinalize');
    expect(scheduling.metadata.labels?.['kubevirt.io/vmi-name']).toBe('vm-ok');
    expect(scheduling.status?.migrationState?.sourcePod).toBe(launcher.metadata.name);
    const target = await targetPodOf(created);
    expectTargetPod(target, created, vmi);

    // The target runs on node-b: Scheduled, then the hand-off on the VMI: PreparingTarget.
    await runTarget(created);
    const handedOff = await vmiWhere(
      env,
      'vm-ok',
      'handed off',
      (v) => v.status?.migrationState !== undefined,
    );
    expect(handedOff.metadata.labels?.['kubevirt.io/migrationTargetNodeName']).toBe(TARGET);
    expect(handedOff.status?.migrationState).toMatchObject({
      migrationUid: created.metadata.uid,
      sourceNode: SOURCE,
      sourcePod: launcher.metadata.name,
      targetNode: TARGET,
      targetPod: target.metadata.name,
      migrationConfiguration: { parallelMigrationsPerCluster: 5, parallelOutboundMigrationsPerNode: 2 },
    });
    await inPhase('mig-ok', 'PreparingTarget');
    // The VMI controller leaves the VMI Running on its source Pod meanwhile.
    expect((await vmiWhere(env, 'vm-ok', 'on source', () => true)).status?.phase).toBe('Running');

    // The target handler's proxy listens: TargetReady.
    await writeState('vm-ok', {
      targetNodeAddress: '10.0.0.2',
      targetDirectMigrationNodePorts: { '4135': 49152 },
    });
    await inPhase('mig-ok', 'TargetReady');
    // The source handler starts: Running.
    await writeState('vm-ok', { startTimestamp: '2026-12-07T05:00:00Z', mode: 'PreCopy' });
    await inPhase('mig-ok', 'Running');
    // The guest arrives; both handlers report: Succeeded, the migrationState copied, the finalizer gone.
    await writeState('vm-ok', {
      targetNodeDomainDetected: true,
      targetNodeDomainReadyTimestamp: '2026-12-07T05:00:09Z',
      endTimestamp: '2026-12-07T05:00:10Z',
      completed: true,
    });
    await patchVmiStatus('vm-ok', { nodeName: TARGET });
    const done = await migrationWhere(
      'mig-ok',
      'Succeeded without finalizer',
      (m) =>
        m.status?.phase === 'Succeeded' &&
        !(m.metadata.finalizers ?? []).includes('kubevirt.io/migrationJobFinalize'),
    );
    expect(done.status?.migrationState).toMatchObject({
      completed: true,
      targetNode: TARGET,
      startTimestamp: '2026-12-07T05:00:00Z',
    });
    expect(done.status?.phaseTransitionTimestamps?.map((t) => t.phase)).toEqual([
      'Pending',
      'Scheduling',
      'Scheduled',
      'PreparingTarget',
      'TargetReady',
      'Running',
      'Succeeded',
    ]);
    // The target Pod stays: it is the VMI's launcher now, and the VMI stays Running.
    expect(await targetPodsOf(created)).toHaveLength(1);
    expect((await vmiWhere(env, 'vm-ok', 'Running on target', () => true)).status?.phase).toBe('Running');
  });

  it('a target Pod that fails fails the migration and is deleted', async () => {
    await runningVmi('vm-fail');
    const m = await createMigration('mig-fail', 'vm-fail');
    await inPhase('mig-fail', 'Scheduling');
    await failTarget(m);
    const failed = await inPhase('mig-fail', 'Failed');
    expect(failed.metadata.finalizers ?? []).not.toContain('kubevirt.io/migrationJobFinalize');
    expect(await targetPodsOf(m)).toEqual([]);
    expect((await vmiWhere(env, 'vm-fail', 'still Running', () => true)).status?.phase).toBe('Running');
  });

  it('deleting a running migration asks the source to abort; the handler ends it', async () => {
    await runningVmi('vm-cancel');
    const m = await createMigration('mig-cancel', 'vm-cancel');
    await runTarget(m);
    await inPhase('mig-cancel', 'PreparingTarget');
    await writeState('vm-cancel', { targetNodeAddress: '10.0.0.2' });
    await writeState('vm-cancel', { startTimestamp: '2026-12-07T05:00:00Z' });
    await inPhase('mig-cancel', 'Running');

    await env.kv.delete(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, 'mig-cancel', { namespace: env.ns });
    const asked = await vmiWhere(
      env,
      'vm-cancel',
      'abortRequested',
      (v) => v.status?.migrationState?.abortRequested === true,
    );
    expect(asked.status?.migrationState?.migrationUid).toBe(m.metadata.uid);
    const cond = await migrationWhere('mig-cancel', 'abort condition', (x) =>
      (x.status?.conditions ?? []).some((c) => c.type === 'migrationAbortRequested'),
    );
    expect(cond.status?.phase).toBe('Running');

    // The source handler aborted: the migration fails, loses its finalizer and goes.
    await writeState('vm-cancel', {
      abortStatus: 'Succeeded',
      failed: true,
      completed: true,
      endTimestamp: '2026-12-07T05:00:03Z',
    });
    await waitFor(async () => (await migrationOf('mig-cancel')) === undefined, 'cancelled migration gone');
  });

  it('a second migration of a VMI waits for the first', async () => {
    await runningVmi('vm-two');
    const first = await createMigration('mig-first', 'vm-two');
    await inPhase('mig-first', 'Scheduling');
    const second = await createMigration('mig-second', 'vm-two');
    await inPhase('mig-second', 'Pending');
    await sleep(2500); // two of its 1 s retries
    expect(await targetPodsOf(second)).toEqual([]);
    expect((await migrationOf('mig-second'))?.status?.phase).toBe('Pending');

    await failTarget(first);
    await inPhase('mig-first', 'Failed');
    await targetPodOf(second);
    await inPhase('mig-second', 'Scheduling');
    await failTarget(second);
    await inPhase('mig-second', 'Failed');
  });

  it('the KubeVirt CR limits parallel migrations in the cluster', async () => {
    await env.kv.create(KUBEVIRTS, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'config', namespace: env.ns },
      spec: { configuration: { migrations: { parallelMigrationsPerCluster: 1, allowPostCopy: true } } },
    });
    await waitFor(
      () => env.controllers.informers.informer(KUBEVIRTS).store.list().length === 1,
      "the KubeVirt CR in the controllers' cache",
    );
    await runningVmi('vm-p1');
    await runningVmi('vm-p2');
    const one = await createMigration('mig-p1', 'vm-p1');
    await inPhase('mig-p1', 'Scheduling');
    const two = await createMigration('mig-p2', 'vm-p2');
    await inPhase('mig-p2', 'Pending');
    await sleep(6000); // past its 5 s retry
    expect(await targetPodsOf(two)).toEqual([]);

    await runTarget(one);
    const handedOff = await vmiWhere(
      env,
      'vm-p1',
      'handed off',
      (v) => v.status?.migrationState !== undefined,
    );
    expect(handedOff.status?.migrationState?.migrationConfiguration).toMatchObject({
      parallelMigrationsPerCluster: 1,
      allowPostCopy: true,
      completionTimeoutPerGiB: 150,
    });
    await failTarget(one);
    await inPhase('mig-p1', 'Failed');
    await inPhase('mig-p2', 'Scheduling');
  }, 60_000);

  it('deletes the PodDisruptionBudgets an older KubeVirt made for a VMI, and no other', async () => {
    const pdb = (name: string, kind: string): KubeObject & { spec: unknown } => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: {
        name,
        namespace: env.ns,
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind,
            name: 'vm-old',
            uid: '0d6f4a3e-0000-4000-8000-000000000001',
            controller: true,
          },
        ],
      },
      spec: { minAvailable: 1, selector: { matchLabels: { 'kubevirt.io/created-by': 'x' } } },
    });
    await env.kv.create(
      POD_DISRUPTION_BUDGETS,
      pdb('kubevirt-disruption-budget-old', 'VirtualMachineInstance'),
    );
    await env.kv.create(POD_DISRUPTION_BUDGETS, pdb('someone-elses', 'VirtualMachine'));
    await waitFor(async () => {
      const names = (await env.kv.list(POD_DISRUPTION_BUDGETS, { namespace: env.ns })).items.map(
        (p) => p.metadata.name,
      );
      return names.length === 1 && names[0] === 'someone-elses';
    }, 'only the PDB no VMI controls left');
  });
});
