/**
 * Pods of another namespace that name a VMI (or its launcher Pod) as their controller, against a real
 * kube-apiserver: the controllers watch Pods in every namespace, as in a cluster, and such a Pod never joins
 * the VMI. Its activePods (which the node reads to find the launcher to dial) never lists it, its volume
 * status never names it, the controller neither deletes it nor lets it stand in for the attachment Pod the
 * VMI needs. The test plays kubelet for both namespaces and virt-handler (Running).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/gvr.ts';
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { isNotFound } from '../kernel/errors/errors.ts';
import { NAMESPACES, PERSISTENT_VOLUME_CLAIMS, PODS } from '../kernel/kube/index.ts';
import type { WatchEvent } from '../kernel/kube/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import {
  FakeKubelet,
  startControllerEnv,
  vmiWhere as vmiWhereIn,
  type ControllerEnv,
} from './testing/cluster.ts';

let env: ControllerEnv;
let other: string;
const NODE = 'node-xns';
const NAME = 'victim';

beforeAll(async () => {
  env = await startControllerEnv('xns', { podsInAllNamespaces: true });
  other = `${env.ns}-b`;
  await env.direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: other } });
  env.onClose(async () => {
    const pods = await env.kv.list<Pod>(PODS, { namespace: other });
    for (const p of pods.items) {
      await env.kv.delete(PODS, p.metadata.name ?? '', { namespace: other, gracePeriodSeconds: 0 });
    }
    await env.direct.delete(NAMESPACES, other).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  });
});
afterAll(async () => {
  await env.close();
});

const vmiWhere = (
  what: string,
  pred: (v: VirtualMachineInstance) => boolean,
): Promise<VirtualMachineInstance> => vmiWhereIn(env, NAME, what, pred);

const podsIn = async (ns: string, selector: string): Promise<Pod[]> =>
  (await env.kv.list<Pod>(PODS, { namespace: ns, labelSelector: selector })).items;

/** A Pod in the other namespace, labelled as ours, whose controller reference names `owner`. */
function foreignPod(name: string, label: string, owner: { kind: string; name: string; uid: string }): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: other,
      labels: { 'kubevirt.io': label },
      ownerReferences: [
        { apiVersion: owner.kind === 'Pod' ? 'v1' : 'kubevirt.io/v1', ...owner, controller: true },
      ],
    },
    spec: {
      containers: [{ name: 'compute', image: 'registry.example/impostor:1' }],
      volumes: [{ name: 'hp', persistentVolumeClaim: { claimName: 'hp-disk' } }],
    },
  };
}

async function createBoundClaim(name: string): Promise<void> {
  await env.kv.create(PERSISTENT_VOLUME_CLAIMS, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: env.ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  await env.kv.patch(
    PERSISTENT_VOLUME_CLAIMS,
    name,
    { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } },
    { namespace: env.ns, subresource: 'status', type: 'merge' },
  );
}

describe('Pods of another namespace', () => {
  it("a Pod in another namespace owning a victim VMI's uid is never dialled", async () => {
    const seen: WatchEvent<VirtualMachineInstance>[] = [];
    const ac = new AbortController();
    const watching = (async (): Promise<void> => {
      const opts = { namespace: env.ns, fieldSelector: `metadata.name=${NAME}` };
      for await (const ev of env.kv.watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, opts, ac.signal))
        seen.push(ev);
    })();

    await createBoundClaim('hp-disk');
    await env.kv.create(VIRTUAL_MACHINE_INSTANCES, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name: NAME, namespace: env.ns },
      spec: {
        domain: {
          resources: { requests: { memory: '128Mi' } },
          devices: { disks: [{ name: 'hp', disk: { bus: 'scsi' } }] },
        },
        volumes: [{ name: 'hp', persistentVolumeClaim: { claimName: 'hp-disk', hotpluggable: true } }],
      },
    });
    const vmi = await vmiWhere('Scheduling', (v) => v.status?.phase === 'Scheduling');
    const created = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
    const launcher = await waitFor(async () => (await podsIn(env.ns, created))[0], 'launcher Pod');

    // The other namespace's Pods name the victim VMI and its launcher Pod, run on the same node and are ready.
    const otherKubelet = new FakeKubelet(env.kv, other);
    const vmiRef = { kind: 'VirtualMachineInstance', name: NAME, uid: vmi.metadata.uid ?? '' };
    const podRef = { kind: 'Pod', name: launcher.metadata.name ?? '', uid: launcher.metadata.uid ?? '' };
    const impostor = await env.kv.create(PODS, foreignPod('impostor', 'virt-launcher', vmiRef));
    const foreign = await env.kv.create(PODS, foreignPod('hp-volume-xxxxx', 'hotplug-disk', podRef));
    for (const p of [impostor, foreign]) {
      await otherKubelet.bind(p, NODE);
      await otherKubelet.ready(p);
    }
    const cache = env.controllers.informers.informer(PODS).store;
    await waitFor(
      () =>
        (cache.get(`${other}/impostor`) as Pod | undefined)?.status?.phase === 'Running' &&
        cache.get(`${other}/hp-volume-xxxxx`),
      "the other namespace's Pods in the controllers' cache",
    );

    // The victim's own launcher Pod becomes ready: Scheduled on its node, then Running (the node's move).
    const kubelet = new FakeKubelet(env.kv, env.ns);
    await kubelet.bind(launcher, NODE);
    await kubelet.ready(launcher);
    const scheduled = await vmiWhere('Scheduled', (v) => v.status?.phase === 'Scheduled');
    expect(scheduled.status?.activePods).toEqual({ [launcher.metadata.uid ?? '']: NODE });
    await env.kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      NAME,
      { status: { phase: 'Running' } },
      { namespace: env.ns, type: 'merge' },
    );

    // The hotplugged claim gets an attachment Pod of the victim's own; kubelet runs it.
    const attachment = await waitFor(
      async () => (await podsIn(env.ns, 'kubevirt.io=hotplug-disk'))[0],
      "an attachment Pod in the VMI's namespace",
    );
    await kubelet.bind(attachment, NODE);
    await kubelet.ready(attachment);
    const attached = await vmiWhere(
      'hp attached from its own attachment Pod',
      (v) =>
        v.status?.volumeStatus?.find((s) => s.name === 'hp')?.hotplugVolume?.attachPodUID ===
        attachment.metadata.uid,
    );
    ac.abort();
    await watching;

    expect(attached.status?.nodeName).toBe(NODE);
    expect(attached.status?.activePods).toEqual({ [launcher.metadata.uid ?? '']: NODE });
    const listed = seen.flatMap((e) =>
      e.type === 'ERROR' ? [] : Object.keys(e.object.status?.activePods ?? {}),
    );
    expect(listed).not.toContain(impostor.metadata.uid);
    const named = seen.flatMap((e) =>
      e.type === 'ERROR'
        ? []
        : (e.object.status?.volumeStatus ?? []).flatMap((s) => [
            s.hotplugVolume?.attachPodName,
            s.hotplugVolume?.attachPodUID,
          ]),
    );
    expect(named).not.toContain(foreign.metadata.name);
    expect(named).not.toContain(foreign.metadata.uid);
    expect((await podsIn(other, 'kubevirt.io')).map((p) => p.metadata.name).sort()).toEqual([
      'hp-volume-xxxxx',
      'impostor',
    ]);
  });
});
