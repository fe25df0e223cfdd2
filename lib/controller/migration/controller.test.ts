/**
 * The migration controller's IO shell on preloaded stores and a recording client: what it writes first, the
 * ResourceQuota condition after a refused create, and the gates in front of the target Pod.
 */
import { beforeEach, describe, expect, it } from '@jest/globals';
import type {
  KubeVirt,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import { Store } from '../../kernel/informer/store.ts';
import { forbidden, RecordingClient } from '../../kernel/kube/testing/recording-client.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { pod, podReady, T0 } from '../../kubevirt/testing/objects.ts';
import { MigrationController } from './controller.ts';
import { MIGRATION_WATCHES } from './handlers.ts';
import { pvc } from '../testing/storage-fixtures.ts';
import { running } from './testing/phase-rows.ts';
import { migration, withMigrationPhase } from './testing/migrations.ts';

const KEY = 'default/testvm-migration';
const FIN = 'kubevirt.io/migrationJobFinalize';
const ctx = { log: nopLogger, reconcileID: 'test' };

let client: RecordingClient;
let migrations: Store<VirtualMachineInstanceMigration>;
let vmis: Store<VirtualMachineInstance>;
let pods: Store<Pod>;
let pvcs: Store<PersistentVolumeClaim>;
let c: MigrationController;

beforeEach(() => {
  client = new RecordingClient();
  migrations = new Store({ freeze: true, indexers: MIGRATION_WATCHES.migrations.indexers });
  vmis = new Store({ freeze: true });
  pods = new Store({ freeze: true, indexers: MIGRATION_WATCHES.pods.indexers });
  pvcs = new Store({ freeze: true });
  c = new MigrationController({
    client,
    migrations,
    vmis,
    pods,
    kubevirts: new Store<KubeVirt>({ freeze: true }),
    pvcs,
    clock: new FakeClock(T0),
    recorder: new MemoryRecorder(),
    launcher: { image: 'virt:test' },
  });
  vmis.add(running());
  pods.add(pod(podReady('node1')));
});

/** A migration at phase that already carries its label and finalizer. */
const ready = (phase: 'Pending' | 'Scheduled'): VirtualMachineInstanceMigration =>
  migration(withMigrationPhase(phase), (m) => {
    m.metadata.finalizers = [FIN];
    m.metadata.labels = { 'kubevirt.io/vmi-name': 'testvm' };
  });

/** The object as the cache shows it after this controller's write. */
const newer = (m: VirtualMachineInstanceMigration): VirtualMachineInstanceMigration => ({
  ...m,
  metadata: { ...m.metadata, resourceVersion: '41' },
});

describe('MigrationController', () => {
  it('a new migration first gets its selector label and finalizer, and nothing else', async () => {
    migrations.add(migration());
    await expect(c.reconcile(KEY, ctx)).resolves.toBeUndefined();
    expect(client.log).toEqual(['patch virtualmachineinstancemigrations default/testvm-migration']);
    expect(client.actions[0]?.body).toEqual({
      metadata: { labels: { 'kubevirt.io/vmi-name': 'testvm' }, finalizers: [FIN], resourceVersion: '40' },
    });
  });

  it('a create refused by a ResourceQuota is retried and sets migrationRejectedByResourceQuota', async () => {
    migrations.add(ready('Pending'));
    client.failNext('create', 'pods', forbidden('pods "x" is forbidden: exceeded quota: q'));
    await expect(c.reconcile(KEY, ctx)).rejects.toThrow(/exceeded quota/);
    expect(client.actions.map((a) => `${a.verb} ${a.resource}`)).toEqual([
      'create pods',
      'patch virtualmachineinstancemigrations',
    ]);
    const statusPatch = client.actions.find((a) => a.subresource === 'status');
    expect(statusPatch?.body).toMatchObject({
      status: { migrationState: { sourcePod: 'virt-launcher-testvm-abcde' } },
    });
    expect(JSON.stringify(statusPatch?.body)).not.toContain('migrationRejectedByResourceQuota');

    // The next pass (on the cache's next version) sees the refusal: the condition, and a new create.
    client.actions.length = 0;
    migrations.add(newer(ready('Pending')));
    await c.reconcile(KEY, ctx);
    expect(client.actions.map((a) => `${a.verb} ${a.resource}`)).toEqual([
      'create pods',
      'patch virtualmachineinstancemigrations',
    ]);
    expect(client.actions[1]?.body).toMatchObject({
      status: { conditions: [{ type: 'migrationRejectedByResourceQuota', status: 'True' }] },
    });
  });

  it('no target Pod while the VMI already has two active Pods: looks again in a second', async () => {
    migrations.add(ready('Pending'));
    pods.add(pod(podReady('node3'), (p) => ((p.metadata.uid = 'other'), (p.metadata.name = 'other'))));
    await expect(c.reconcile(KEY, ctx)).resolves.toEqual({ requeueAfterMs: 1000 });
    expect(client.actions.filter((a) => a.verb === 'create')).toEqual([]);
  });

  it('no second target Pod while the first creation is not yet in the cache', async () => {
    migrations.add(ready('Pending'));
    await c.reconcile(KEY, ctx);
    expect(client.actions.filter((a) => a.verb === 'create')).toHaveLength(1);
    client.actions.length = 0;
    migrations.add(newer(ready('Pending')));
    await c.reconcile(KEY, ctx);
    expect(client.actions.filter((a) => a.verb === 'create')).toEqual([]);
  });
});

describe('MigrationController, a VMI with a hotplugged volume', () => {
  const MIGRATION_UID = 'mig-uid-1';
  const withHotplug = (v: VirtualMachineInstance): void => {
    v.spec.volumes = [{ name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } }];
    (v.status ??= {}).volumeStatus = [
      {
        name: 'hp',
        target: 'sda',
        phase: 'Ready',
        hotplugVolume: { attachPodName: 'hp-volume-src', attachPodUID: 'src' },
      },
    ];
  };
  const targetPod = pod(podReady('node2'), (p) => {
    p.metadata.name = 'virt-launcher-testvm-migra';
    p.metadata.uid = 'target-uid';
    p.metadata.labels = { ...p.metadata.labels, 'kubevirt.io/migrationJobUID': MIGRATION_UID };
  });

  beforeEach(() => {
    vmis.add(running(withHotplug));
    pvcs.add(pvc('hp-claim'));
    pods.add(targetPod);
  });

  it('gives the ready target Pod an attachment Pod that mounts every volume again, labelled with the migration', async () => {
    migrations.add(ready('Pending'));
    await c.reconcile(KEY, ctx);
    const created = client.actions.find((a) => a.verb === 'create')?.body as Pod | undefined;
    expect(created?.metadata).toMatchObject({
      generateName: 'hp-volume-',
      labels: { 'kubevirt.io': 'hotplug-disk', 'kubevirt.io/migrationJobUID': MIGRATION_UID },
      annotations: { 'kubevirt.io/migrationJobName': 'testvm-migration' },
      ownerReferences: [
        { kind: 'Pod', name: 'virt-launcher-testvm-migra', uid: 'target-uid', controller: true },
      ],
    });
    // Mounted although the source node has it Ready: the target node has not.
    expect(created?.spec.containers[0]?.volumeMounts).toContainEqual({ name: 'hp', mountPath: '/path/hp' });
    expect(JSON.stringify(created?.spec['affinity'])).toContain('"node2"');
    const status = client.actions.find((a) => a.subresource === 'status')?.body;
    expect(JSON.stringify(status)).not.toContain('Scheduling');
  });

  it('hands the attachment Pod’s uid over with the migration', async () => {
    pods.add(
      pod(podReady('node2'), (p) => {
        p.metadata.name = 'hp-volume-tgt';
        p.metadata.uid = 'tgt-attach';
        p.metadata.labels = { 'kubevirt.io': 'hotplug-disk', 'kubevirt.io/migrationJobUID': MIGRATION_UID };
        p.metadata.ownerReferences = [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: targetPod.metadata.name ?? '',
            uid: 'target-uid',
            controller: true,
          },
        ];
      }),
    );
    migrations.add(ready('Scheduled'));
    await c.reconcile(KEY, ctx);
    const handOff = client.actions.find(
      (a) => a.verb === 'patch' && a.resource === 'virtualmachineinstances',
    );
    expect(handOff?.body).toMatchObject({
      status: {
        migrationState: { targetAttachmentPodUID: 'tgt-attach', targetPod: 'virt-launcher-testvm-migra' },
      },
    });
  });

  it('does not hand over without the attachment Pod', async () => {
    migrations.add(ready('Scheduled'));
    await expect(c.reconcile(KEY, ctx)).rejects.toThrow(/target attachment pod not found/);
    expect(client.actions.filter((a) => a.resource === 'virtualmachineinstances')).toEqual([]);
  });
});
