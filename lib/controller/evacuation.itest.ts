/**
 * Node evacuation against a real kube-apiserver, through the rewriter rules: a VMI the eviction webhook marked
 * (status.evacuationNodeName) gets one kubevirt-evacuation- migration from the evacuation controller, and no
 * second one however often its node is looked at; the KubeVirt CR's per-node limit holds a second VMI back while
 * the first migrates, and a VMI whose evacuation was cancelled meanwhile gets none once a slot frees, while the
 * failed VMI's next migration backs off. The test
 * plays the kubelet (binds, readies, fails Pods) and the handler (the VMI's phase and LiveMigratable).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
} from '../kubevirt/gvr.ts';
import type { VirtualMachineInstanceMigration } from '../kubevirt/index.ts';
import { EVENTS, NODES, PODS } from '../kernel/kube/index.ts';
import type { KubeObject } from '../kernel/kube/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { sleep, waitFor } from '../kernel/testing/wait.ts';
import { FakeKubelet, startControllerEnv, vmiWhere, type ControllerEnv } from './testing/cluster.ts';

type Migration = VirtualMachineInstanceMigration;

let env: ControllerEnv;
let kubelet: FakeKubelet;
let nodes: string[] = [];

beforeAll(async () => {
  env = await startControllerEnv('evacuation', { resyncPeriodMs: 1000 });
  kubelet = new FakeKubelet(env.kv, env.ns);
  nodes = ['a', 'b'].map((n) => `${env.ns}-${n}`);
  for (const name of nodes)
    await env.kv.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
});
afterAll(async () => {
  for (const name of nodes) await env.kv.delete(NODES, name);
  await env.close();
});

const podsLabelled = async (selector: string): Promise<Pod[]> =>
  (await env.kv.list<Pod>(PODS, { namespace: env.ns, labelSelector: selector })).items;

const migrationsOf = async (vmiName: string): Promise<Migration[]> =>
  (await env.kv.list<Migration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, { namespace: env.ns })).items.filter(
    (m) => m.spec.vmiName === vmiName,
  );

const patchVmiStatus = (name: string, status: Record<string, unknown>): Promise<unknown> =>
  env.kv.patch(VIRTUAL_MACHINE_INSTANCES, name, { status }, { namespace: env.ns, type: 'merge' });

/** A Running, live-migratable VMI with eviction strategy LiveMigrate whose launcher Pod runs on node. */
async function runningVmi(name: string, node: string): Promise<void> {
  await env.kv.create(VIRTUAL_MACHINE_INSTANCES, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: env.ns },
    spec: {
      evictionStrategy: 'LiveMigrate',
      domain: { resources: { requests: { memory: '128Mi' } }, devices: {} },
    },
  });
  const scheduling = await vmiWhere(env, name, 'Scheduling', (v) => v.status?.phase === 'Scheduling');
  const selector = `kubevirt.io/created-by=${scheduling.metadata.uid ?? ''}`;
  const launcher = await waitFor(async () => (await podsLabelled(selector))[0], `launcher Pod of ${name}`);
  await kubelet.bind(launcher, node);
  await kubelet.ready(launcher);
  await vmiWhere(env, name, 'Scheduled', (v) => v.status?.phase === 'Scheduled');
  await patchVmiStatus(name, {
    phase: 'Running',
    conditions: [{ type: 'LiveMigratable', status: 'True' }],
  });
  await vmiWhere(env, name, 'Running', (v) => v.status?.phase === 'Running');
}

/** The one migration of vmiName, once there is one. */
const theMigration = (vmiName: string): Promise<Migration> =>
  waitFor(async () => (await migrationsOf(vmiName))[0], `a migration of ${vmiName}`);

const migrationInPhase = (name: string, phase: string): Promise<Migration> =>
  waitFor(async () => {
    const m = await env.kv.get<Migration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, name, { namespace: env.ns });
    return m.status?.phase === phase ? m : undefined;
  }, `migration ${name} ${phase}`);

/** The migration's target Pod fails; once the migration controller deletes it, the kubelet lets it go. */
async function failTarget(m: Migration): Promise<void> {
  const selector = `kubevirt.io/migrationJobUID=${m.metadata.uid ?? ''}`;
  const pod = await waitFor(async () => (await podsLabelled(selector))[0], 'target Pod');
  await kubelet.fail(pod);
  await waitFor(async () => {
    const [p] = await podsLabelled(selector);
    if (p === undefined) return true;
    if (p.metadata.deletionTimestamp !== undefined) await kubelet.remove(p);
    return false;
  }, 'target Pod deleted');
}

describe('evacuation controller against kube-apiserver', () => {
  it('a VMI marked for evacuation gets exactly one migration, however often its node is looked at', async () => {
    const [node = ''] = nodes;
    await runningVmi('vm-evac', node);
    expect(await migrationsOf('vm-evac')).toEqual([]);
    await patchVmiStatus('vm-evac', { evacuationNodeName: node });

    const m = await theMigration('vm-evac');
    expect(m.metadata.name).toMatch(/^kubevirt-evacuation-/);
    expect(m.metadata.annotations?.['kubevirt.io/evacuationMigration']).toBe(node);
    expect(m.metadata.labels?.['kubevirt.io/vmi-name']).toBe('vm-evac');
    // The migration controller takes it on: a target Pod, Scheduling.
    await migrationInPhase(m.metadata.name ?? '', 'Scheduling');

    // Resyncs every second, and the node and VMI touched: still the one migration.
    await env.kv.patch(NODES, node, { metadata: { labels: { touched: '1' } } }, { type: 'merge' });
    await patchVmiStatus('vm-evac', { reason: 'touched' });
    await sleep(3000);
    expect((await migrationsOf('vm-evac')).map((x) => x.metadata.name)).toEqual([m.metadata.name]);
  }, 60_000);

  it('the per-node limit holds a second VMI back; cancelled meanwhile, it gets none when the slot frees', async () => {
    const [, node = ''] = nodes;
    await env.kv.create(KUBEVIRTS, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'config', namespace: env.ns },
      spec: { configuration: { migrations: { parallelOutboundMigrationsPerNode: 1 } } },
    });
    await waitFor(
      () => env.controllers.informers.informer(KUBEVIRTS).store.list().length === 1,
      "the KubeVirt CR in the controllers' cache",
    );
    await runningVmi('vm-first', node);
    await runningVmi('vm-second', node);
    await patchVmiStatus('vm-first', { evacuationNodeName: node });
    const first = await theMigration('vm-first');
    await migrationInPhase(first.metadata.name ?? '', 'Scheduling');

    // The node's one outbound slot is taken: no migration for the second, past the controller's 5 s retry.
    await patchVmiStatus('vm-second', { evacuationNodeName: node });
    await sleep(6000);
    expect(await migrationsOf('vm-second')).toEqual([]);

    // Its evacuation is cancelled; then the first migration fails and frees the slot.
    await patchVmiStatus('vm-second', { evacuationNodeName: null });
    await failTarget(first);
    await migrationInPhase(first.metadata.name ?? '', 'Failed');

    // The first VMI, still marked, gets its next migration, which backs off 20 s after the failure before
    // it (no target Pod yet); the second VMI gets none.
    const next = await waitFor(
      async () => (await migrationsOf('vm-first')).find((m) => m.metadata.uid !== first.metadata.uid),
      'a second migration of vm-first',
    );
    await sleep(2000);
    expect(await migrationsOf('vm-second')).toEqual([]);
    expect(await podsLabelled(`kubevirt.io/migrationJobUID=${next.metadata.uid ?? ''}`)).toEqual([]);
    const events = await env.kv.list<KubeObject & { reason?: string }>(EVENTS, { namespace: env.ns });
    expect(events.items.map((e) => e.reason)).toContain('MigrationBackoff');
  }, 90_000);
});
