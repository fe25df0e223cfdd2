import { describe, expect, it } from '@jest/globals';
import { Store } from '../../../kernel/informer/store.ts';
import type { KubeObject } from '../../../kernel/kube/index.ts';
import type { OwnerReference } from '../../../kernel/kube/types.ts';
import { RecordingClient } from '../../../kernel/kube/testing/recording-client.ts';
import type { PersistentVolumeClaim } from '../../../kubevirt/core/pvc.ts';
import type { KubeVirt, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { ensureBackendStorage } from './sync.ts';

/** The recording client, also answering reads of storage classes. */
function classesClient(classes: KubeObject[]): RecordingClient {
  const c = new RecordingClient();
  c.list = (() => Promise.resolve({ items: classes, metadata: {} })) as unknown as RecordingClient['list'];
  c.get = ((_r: unknown, name: string) => {
    const found = classes.find((x) => x.metadata.name === name);
    return found === undefined ? Promise.reject(new Error('not found')) : Promise.resolve(found);
  }) as unknown as RecordingClient['get'];
  return c;
}

const sc = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  ...extra,
});
const DEFAULT = sc('local', {
  metadata: { name: 'local', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  volumeBindingMode: 'Immediate',
});
const WFFC = sc('wffc', { volumeBindingMode: 'WaitForFirstConsumer' });

const vmi = (persistent: boolean): VirtualMachineInstance => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'win', namespace: 'vms', uid: 'u1' },
  spec: { domain: { devices: { tpm: { persistent } } } },
});
const vmiRef: OwnerReference = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  name: 'win',
  uid: 'u1',
  controller: true,
  blockOwnerDeletion: true,
};
const claim = (phase: string | undefined, storageClassName = 'local'): PersistentVolumeClaim =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'persistent-state-for-win',
      namespace: 'vms',
      labels: { 'persistent-state-for': 'win' },
    },
    spec: { storageClassName },
    ...(phase !== undefined && { status: { phase } }),
  }) as PersistentVolumeClaim;

function run(o: {
  persistent?: boolean;
  claims?: PersistentVolumeClaim[];
  classes?: KubeObject[];
  kubevirt?: KubeVirt;
}): { client: RecordingClient; result: ReturnType<typeof ensureBackendStorage> } {
  const pvcs = new Store<PersistentVolumeClaim>();
  for (const c of o.claims ?? []) pvcs.add(c);
  const client = classesClient(o.classes ?? [DEFAULT, WFFC]);
  const result = ensureBackendStorage({
    client,
    pvcs,
    kubevirt: o.kubevirt,
    vmi: vmi(o.persistent ?? true),
    vmiRef,
  });
  return { client, result };
}

describe('ensureBackendStorage', () => {
  it('needs nothing for a VMI that keeps no state', async () => {
    const { client, result } = run({ persistent: false });
    expect(await result).toEqual({ ready: true });
    expect(client.log).toEqual([]);
  });

  it('makes the claim in the default class when there is none, and waits for it', async () => {
    const { client, result } = run({});
    expect(await result).toEqual({
      ready: false,
      waiting: 'created backend storage claim persistent-state-for-win',
    });
    expect(client.log).toEqual(['create persistentvolumeclaims vms/persistent-state-for-win']);
    expect(client.actions[0]?.body).toMatchObject({
      spec: { storageClassName: 'local', accessModes: ['ReadWriteOnce'] },
      metadata: { ownerReferences: [vmiRef] },
    });
  });

  it("takes the KubeVirt resource's vmStateStorageClass, ReadWriteMany", async () => {
    const kubevirt = { spec: { configuration: { vmStateStorageClass: 'shared' } } } as unknown as KubeVirt;
    const { client, result } = run({ kubevirt, classes: [] });
    await result;
    expect(client.actions[0]?.body).toMatchObject({
      spec: { storageClassName: 'shared', accessModes: ['ReadWriteMany'] },
    });
  });

  it.each<[string, PersistentVolumeClaim, { ready: boolean }]>([
    ['Bound: the Pod mounts it', claim('Bound'), { ready: true }],
    ['Pending in an Immediate class: wait', claim('Pending'), { ready: false }],
    ['Pending in a WaitForFirstConsumer class: the Pod binds it', claim(undefined, 'wffc'), { ready: true }],
  ])('a claim %s', async (_case, c, want) => {
    const { client, result } = run({ claims: [c] });
    expect(await result).toMatchObject(want);
    expect(client.log).toEqual([]);
  });

  it.each<[string, PersistentVolumeClaim, RegExp]>([
    ['Lost', claim('Lost'), /persistent-state-for-win is Lost/],
    ['Pending in a class that is not there', claim('Pending', 'gone'), /storage class gone not found/],
  ])('fails for a claim %s', async (_case, c, message) => {
    await expect(run({ claims: [c] }).result).rejects.toThrow(message);
  });

  it('fails without a class to use', async () => {
    await expect(run({ classes: [] }).result).rejects.toThrow(/no default storage class found/);
  });
});
