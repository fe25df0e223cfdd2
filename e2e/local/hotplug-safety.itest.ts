/**
 * Hotplug on the real node when the tenant plays tricks, one running VMI shared by the cases, the handler started
 * with its kubelet pods dir behind a symlink:
 * - a claim whose disk.img is a symlink to a node file, and a symlink planted in the launcher Pod's hotplug-disks
 *   dir where the disk would be mounted: each is refused with the reason on the VMI (a HotplugFailed event, the
 *   volume's reason and message, never MountedToPod), the node file unchanged (content, owner, mode), nothing
 *   mounted;
 * - a good claim through the symlinked pods dir: added, resynced for a minute, removed: exactly one mount at each
 *   point, none at the end;
 * - a volume status forged for a claim that names another namespace's volume (left Pending): no mount, the
 *   victim's file unchanged, the refusal on the VMI.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lstat, mkdtemp, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  VIRTUAL_MACHINE_INSTANCES,
  type VirtualMachineInstance,
  type VolumeStatus,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../lib/kubevirt/core/pvc.ts';
import { EVENTS, NAMESPACES, PERSISTENT_VOLUME_CLAIMS, PODS } from '../../lib/kernel/kube/index.ts';
import type { KubeObject } from '../../lib/kernel/kube/types.ts';
import { mountCount, readMountPoints } from '../../lib/kernel/host/mounts.ts';
import { sleep, waitFor } from '../../lib/kernel/testing/wait.ts';
import { HOTPLUG_DISKS_VOLUME, podVolumeOnNode } from '../../lib/rpc/index.ts';
import { STORAGE_CLASS } from './storage.ts';
import { ownClaimWithDisk, removeOwnVolume, type OwnVolume } from './testing/claims.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, deleteNamespace, kubeletPodsDir } from './virt.ts';

const NAME = 'hps-vmi';
const HOST_TEXT = 'a file of the node, not the tenant’s';
let work = '';
let podUid = '';
let hostFile = '';

/** Mount points below dir (stacked ones once each time they are listed). */
async function mountsBelow(dir: string): Promise<string[]> {
  return (await readMountPoints()).filter((p) => p.startsWith(`${dir}/`));
}

/** Takes off whatever a handler mounted that it should not have (a regression), stacked mounts included. */
async function unmountLeftovers(): Promise<void> {
  const dirs = [work, podUid === '' ? '' : hotplugDir()].filter((d) => d !== '');
  for (let i = 0; i < 100; i++) {
    const left = (await Promise.all(dirs.map(mountsBelow))).flat();
    if (left.length === 0) return;
    for (const p of left.reverse()) execFileSync('umount', ['--lazy', p]);
  }
}

// Before the suite's own afterAll (hooks run in the order declared), so that no such mount keeps the kubelet
// from removing the launcher Pod while the namespace goes.
afterAll(unmountLeftovers);

const volumes: OwnVolume[] = [];
const s = virtSuite('hpsafe', {
  handler: true,
  handlerFlags: async (dir) => {
    work = await mkdtemp(join(tmpdir(), 'kvts-hpsafe-'));
    const podsLink = join(work, 'pods-link');
    await symlink(kubeletPodsDir(dir), podsLink);
    return ['--kubelet-pods-dir', podsLink];
  },
  // The own volumes go once their claims have (the suite's namespace is gone by then), while the cluster is up.
  cleanup: async (c) => {
    await deleteNamespace(c, victimNs, 120_000);
    for (const v of volumes) await removeOwnVolume(c.direct, v);
  },
});
const victimNs = `${s.ns}-victim`;

// Last: nothing may stay mounted below work when it is removed.
afterAll(async () => {
  await unmountLeftovers();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns });

const statusOf = (v: VirtualMachineInstance, volume: string): VolumeStatus | undefined =>
  v.status?.volumeStatus?.find((x) => x.name === volume);

const hotplugDir = (): string => podVolumeOnNode(kubeletPodsDir(s.c.dir), podUid, HOTPLUG_DISKS_VOLUME);

interface Event extends KubeObject {
  reason?: string;
  message?: string;
  involvedObject?: { name?: string };
}

/** The HotplugFailed events on the VMI about this volume. */
async function hotplugFailed(volume: string): Promise<string[]> {
  const list = await s.clients.direct.list<Event>(EVENTS, { namespace: s.ns });
  return list.items
    .filter((e) => e.involvedObject?.name === NAME && e.reason === 'HotplugFailed')
    .map((e) => e.message ?? '')
    .filter((m) => m.includes(`hotplug volume ${volume}:`));
}

async function fileFacts(p: string): Promise<{ text: string; uid: number; gid: number; mode: number }> {
  const st = await stat(p);
  return { text: await readFile(p, 'utf8'), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
}

/** Adds (or, without a claim, removes) a hotplug volume on the SCSI bus, as addvolume/removevolume would. */
async function setVolume(volume: string, claim?: string, status?: VolumeStatus): Promise<void> {
  const vmi = await getVmi();
  const vols = (vmi.spec.volumes ?? []).filter((v) => v.name !== volume);
  const disks = (vmi.spec.domain.devices.disks ?? []).filter((d) => d.name !== volume);
  const patch = {
    spec: {
      volumes:
        claim === undefined
          ? vols
          : [...vols, { name: volume, persistentVolumeClaim: { claimName: claim, hotpluggable: true } }],
      domain: {
        devices: { disks: claim === undefined ? disks : [...disks, { name: volume, disk: { bus: 'scsi' } }] },
      },
    },
    ...(status !== undefined && {
      status: {
        volumeStatus: [...(vmi.status?.volumeStatus ?? []).filter((v) => v.name !== volume), status],
      },
    }),
  };
  await s.clients.kv.patch(VIRTUAL_MACHINE_INSTANCES, NAME, patch, { namespace: s.ns, type: 'merge' });
}

/** Takes the volume out of the spec and waits until nothing is mounted for it and it left the status. */
async function removeVolume(volume: string, target: string): Promise<void> {
  await setVolume(volume);
  await waitFor(
    async () => (await mountCount(target)) === 0 && statusOf(await getVmi(), volume) === undefined,
    `the volume ${volume} gone`,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

/** What a watch over a volume saw: the most mounts at its target, and every phase and target it had. */
interface Seen {
  mounts: number;
  phases: Set<string>;
  targets: Set<string>;
}

async function look(volume: string, target: string, seen: Seen): Promise<VolumeStatus | undefined> {
  seen.mounts = Math.max(seen.mounts, await mountCount(target));
  const st = statusOf(await getVmi(), volume);
  if (st?.phase !== undefined) seen.phases.add(st.phase);
  if ((st?.target ?? '') !== '') seen.targets.add(st?.target ?? '');
  return st;
}

const newSeen = (): Seen => ({ mounts: 0, phases: new Set(), targets: new Set() });

/** Waits for the refusal on the VMI (the event, and the volume's reason); nothing may be mounted meanwhile. */
async function refusal(volume: string, target: string): Promise<{ event: string; status: VolumeStatus }> {
  const seen = newSeen();
  const got = await waitFor(
    async () => {
      const st = await look(volume, target, seen);
      const event = (await hotplugFailed(volume))[0];
      return st?.reason === 'HotplugFailed' && event !== undefined && { event, status: st };
    },
    `the refusal of ${volume} on the VMI`,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  expect(seen.mounts).toBe(0);
  expect([...seen.phases].filter((p) => p === 'MountedToPod' || p === 'Ready')).toEqual([]);
  return got;
}

beforeAll(async () => {
  hostFile = join(work, 'host-file');
  await writeFile(hostFile, HOST_TEXT, { mode: 0o600 });
  await s.clients.kv.create(VIRTUAL_MACHINE_INSTANCES, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: NAME, namespace: s.ns },
    spec: (await agentVm(s.ns)).spec.template.spec,
  });
  const vmi = await waitFor(
    async () => {
      const v = await getVmi();
      return v.status?.phase === 'Running' && v;
    },
    'the VMI Running',
    { timeoutMs: 240_000, intervalMs: 500 },
  );
  const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
  const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
  podUid = pods.items[0]?.metadata.uid ?? '';
}, 600_000);

const UNTOUCHED = { text: HOST_TEXT, uid: 0, gid: 0, mode: 0o600 };

describe('hotplug safety on node local', () => {
  it('refuses a claim whose disk.img is a symlink to a node file', async () => {
    const v = await ownClaimWithDisk(s.clients.direct, {
      ns: s.ns,
      name: 'link-claim',
      parent: work,
      content: '',
    });
    volumes.push(v);
    await rm(join(v.dir, 'disk.img'));
    await symlink(hostFile, join(v.dir, 'disk.img'));
    const target = join(hotplugDir(), 'hp-link.img');
    await setVolume('hp-link', 'link-claim');
    const { event, status } = await refusal('hp-link', target);
    expect(event).toBe(
      `failed to mount filesystem hotplug volume hp-link: ${join(v.dir, 'disk.img')} is a symbolic link`,
    );
    expect(status).toMatchObject({ phase: 'AttachedToNode', message: event });
    expect(await fileFacts(hostFile)).toEqual(UNTOUCHED);
    await removeVolume('hp-link', target);
  }, 300_000);

  it('refuses a symlink planted where the disk would be mounted in the launcher Pod', async () => {
    volumes.push(
      await ownClaimWithDisk(s.clients.direct, {
        ns: s.ns,
        name: 'plant-claim',
        parent: work,
        content: 'DISK',
      }),
    );
    const target = join(hotplugDir(), 'hp-plant.img');
    await symlink(hostFile, target);
    await setVolume('hp-plant', 'plant-claim');
    const { event, status } = await refusal('hp-plant', target);
    expect(event).toBe(`failed to mount filesystem hotplug volume hp-plant: ${target} is a symbolic link`);
    expect(status).toMatchObject({ phase: 'AttachedToNode', message: event });
    expect(await fileFacts(hostFile)).toEqual(UNTOUCHED);
    expect((await lstat(target)).isSymbolicLink()).toBe(true);
    await removeVolume('hp-plant', target);
    await unlink(target);
  }, 300_000);

  it('through a pods dir behind a symlink: one mount from add through a minute of resyncs, none once removed', async () => {
    volumes.push(
      await ownClaimWithDisk(s.clients.direct, { ns: s.ns, name: 'ok-claim', parent: work, content: 'DISK' }),
    );
    const target = join(hotplugDir(), 'hp-ok.img');
    await setVolume('hp-ok', 'ok-claim');
    const seen = newSeen();
    await waitFor(async () => (await look('hp-ok', target, seen))?.phase === 'Ready', 'the volume Ready', {
      timeoutMs: 180_000,
      intervalMs: 500,
    });
    expect(seen.mounts).toBe(1);
    // The handler resyncs a running VMI every 15 s: a minute is four passes over a mounted volume.
    const counts: number[] = [];
    for (let i = 0; i < 60; i++) {
      await sleep(1000);
      counts.push(await mountCount(target));
    }
    expect(counts).toEqual(Array.from({ length: 60 }, () => 1));
    expect(await readFile(target, 'utf8')).toBe('DISK');
    await removeVolume('hp-ok', target);
    expect(await mountCount(target)).toBe(0);
  }, 400_000);

  it('mounts nothing for a forged status whose claim names another namespace’s volume', async () => {
    await s.clients.direct.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: victimNs },
    });
    const victim = await ownClaimWithDisk(s.clients.direct, {
      ns: victimNs,
      name: 'data',
      parent: work,
      content: 'VICTIM DATA',
    });
    volumes.push(victim);
    const victimDisk = join(victim.dir, 'disk.img');
    const before = await fileFacts(victimDisk);
    // The tenant's claim names the victim's volume; bound to another claim, it leaves this one Pending.
    const steal: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'steal', namespace: s.ns },
      spec: {
        storageClassName: STORAGE_CLASS,
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        volumeName: victim.pvName,
        resources: { requests: { storage: '1Gi' } },
      },
    };
    await s.clients.direct.create(PERSISTENT_VOLUME_CLAIMS, steal);
    const target = join(hotplugDir(), 'hp-steal.img');
    const forged = randomUUID();
    await setVolume('hp-steal', 'steal', {
      name: 'hp-steal',
      target: '',
      phase: 'Ready',
      hotplugVolume: { attachPodName: 'hp-volume-forged', attachPodUID: forged },
      persistentVolumeClaimInfo: { claimName: 'steal', volumeMode: 'Filesystem' },
    });
    // The refusal: the node's HotplugFailed event, or the control plane dropping the attachment it never made.
    const seen = newSeen();
    const said = await waitFor(
      async () => {
        const st = await look('hp-steal', target, seen);
        const events = await hotplugFailed('hp-steal');
        const dropped = st?.hotplugVolume?.attachPodUID !== forged;
        return (events.length > 0 || dropped) && { events, status: st };
      },
      'the forged volume refused',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    for (const e of said.events) expect(e).toMatch(/^failed to mount filesystem hotplug volume hp-steal: /);
    // A while longer, in case a later sync mounted it after all.
    for (let i = 0; i < 30; i++) {
      await sleep(1000);
      await look('hp-steal', target, seen);
    }
    expect({ mounts: seen.mounts, targets: [...seen.targets] }).toEqual({ mounts: 0, targets: [] });
    expect(await fileFacts(victimDisk)).toEqual(before);
    await removeVolume('hp-steal', target);
  }, 400_000);
});
