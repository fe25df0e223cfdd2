/**
 * The evacuation controller's IO shell on preloaded stores and a recording client: the migration it creates and
 * its events, the expectations that hold back a second pass, a refused create, and the KubeVirt CR's settings.
 */
import { beforeEach, describe, expect, it } from '@jest/globals';
import type {
  KubeVirt,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import { Store } from '../../kernel/informer/store.ts';
import { forbidden, RecordingClient } from '../../kernel/kube/testing/recording-client.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { T0, vmi, withPhase, withVmiCondition } from '../../kubevirt/testing/objects.ts';
import { MIGRATION_WATCHES } from '../migration/handlers.ts';
import { migration, withMigrationPhase } from '../migration/testing/migrations.ts';
import { EvacuationController } from './controller.ts';
import { EVACUATION_WATCHES, type Node } from './handlers.ts';

const NODE = 'node01';
const ctx = { log: nopLogger, reconcileID: 'test' };

let client: RecordingClient;
let recorder: MemoryRecorder;
let nodes: Store<Node>;
let vmis: Store<VirtualMachineInstance>;
let migrations: Store<VirtualMachineInstanceMigration>;
let kubevirts: Store<KubeVirt>;
let c: EvacuationController;

const node = (taints: Node['spec'] = {}): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: NODE },
  spec: taints,
});

const onNode = (name: string, evacuate: boolean): VirtualMachineInstance =>
  vmi(withPhase('Running'), withVmiCondition('LiveMigratable', 'True'), (v) => {
    v.metadata.name = name;
    v.metadata.uid = `uid-${name}`;
    v.spec.evictionStrategy = 'LiveMigrate';
    v.status = { ...v.status, nodeName: NODE, ...(evacuate && { evacuationNodeName: NODE }) };
  });

beforeEach(() => {
  client = new RecordingClient();
  recorder = new MemoryRecorder();
  nodes = new Store({ freeze: true });
  vmis = new Store({ freeze: true, indexers: EVACUATION_WATCHES.vmis.indexers });
  migrations = new Store({ freeze: true, indexers: MIGRATION_WATCHES.migrations.indexers });
  kubevirts = new Store({ freeze: true });
  c = new EvacuationController({
    client,
    nodes,
    vmis,
    migrations,
    pods: new Store<Pod>({ freeze: true, indexers: MIGRATION_WATCHES.pods.indexers }),
    kubevirts,
    clock: new FakeClock(T0),
    recorder,
  });
  nodes.add(node());
});

describe('EvacuationController', () => {
  it('creates one migration for a VMI marked for evacuation, with an event on the VMI', async () => {
    vmis.add(onNode('vm-a', true));
    vmis.add(onNode('vm-b', false));
    await expect(c.reconcile(NODE, ctx)).resolves.toBeUndefined();
    expect(client.log).toEqual(['create virtualmachineinstancemigrations default/kubevirt-evacuation-gen1']);
    expect(client.actions[0]?.body).toMatchObject({
      metadata: { annotations: { 'kubevirt.io/evacuationMigration': NODE } },
      spec: { vmiName: 'vm-a' },
    });
    expect(recorder.events).toEqual([
      {
        kind: 'VirtualMachineInstance',
        name: 'vm-a',
        type: 'Normal',
        reason: 'SuccessfulCreate',
        message: 'Created Migration kubevirt-evacuation-gen1',
      },
    ]);
  });

  it('creates nothing more until its migrations are seen, then nothing for a VMI that has one', async () => {
    vmis.add(onNode('vm-a', true));
    await c.reconcile(NODE, ctx);
    await c.reconcile(NODE, ctx);
    expect(client.log).toHaveLength(1);

    migrations.add(migration((m) => (m.spec.vmiName = 'vm-a'), withMigrationPhase('Pending')));
    c.expectations.creationObserved(NODE);
    await c.reconcile(NODE, ctx);
    expect(client.log).toHaveLength(1);
  });

  it('a refused create: a warning on the VMI, the pass fails, and the next pass tries again', async () => {
    vmis.add(onNode('vm-a', true));
    client.failNext('create', 'virtualmachineinstancemigrations', forbidden('no'));
    await expect(c.reconcile(NODE, ctx)).rejects.toThrow('no');
    expect(recorder.events.map((e) => `${e.type} ${e.reason} ${e.message}`)).toEqual([
      'Warning FailedCreate Error creating a Migration: no',
    ]);
    await c.reconcile(NODE, ctx);
    expect(client.log).toHaveLength(2);
  });

  it('a node that is gone: nothing', async () => {
    vmis.add(onNode('vm-a', true));
    await expect(c.reconcile('gone', ctx)).resolves.toBeUndefined();
    expect(client.log).toEqual([]);
  });

  it("reads the drain taint key and the node's limit from the KubeVirt CR", async () => {
    kubevirts.add({
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'kv', namespace: 'kubevirt' },
      spec: {
        configuration: {
          migrations: { nodeDrainTaintKey: 'example.com/drain', parallelOutboundMigrationsPerNode: 1 },
        },
      },
    });
    nodes.add(node({ taints: [{ key: 'example.com/drain', effect: 'NoSchedule' }] }));
    vmis.add(onNode('vm-a', false));
    vmis.add(onNode('vm-b', false));
    await c.reconcile(NODE, ctx);
    expect(client.actions.map((a) => (a.body as VirtualMachineInstanceMigration).spec.vmiName)).toEqual([
      'vm-a',
    ]);
  });
});
