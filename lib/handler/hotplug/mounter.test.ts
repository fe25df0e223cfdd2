/**
 * The hotplug mounter on a real filesystem (as root, in temp dirs): real bind mounts into a launcher Pod's
 * hotplug directory laid out as the kubelet lays it out, with the claim, volume and Pods read from an in-memory
 * world. A tenant's symlink at the source or the target is refused with the host file untouched and nothing
 * mounted; a pods dir reached through a symlink gets exactly one mount however often it is reconciled.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { mountCount, readMountPoints } from '../../kernel/host/mounts.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { HotplugMounter } from './mounter.ts';
import type { HotplugOutcome } from './plan.ts';
import {
  hotplugWorld,
  NODE,
  PV_NAME,
  readerOf,
  UIDS,
  type HotplugWorld,
  type PvSource,
} from './testing/world.ts';

let t = '';
let pods = '';
let hotplugDir = '';
let outside = '';

const HOST_TEXT = 'a file of the node';

beforeEach(async () => {
  t = await mkdtemp(join(tmpdir(), 'hotplug-'));
  pods = join(t, 'kubelet/pods');
  hotplugDir = join(pods, UIDS.launcher, 'volumes/kubernetes.io~empty-dir/hotplug-disks');
  await mkdir(hotplugDir, { recursive: true });
  await mkdir(join(t, 'pv'));
  await writeFile(join(t, 'pv/disk.img'), 'DISK');
  outside = join(t, 'host-secret');
  await writeFile(outside, HOST_TEXT, { mode: 0o600 });
});

afterEach(async () => {
  // Whatever a failed test left mounted under the temp dir (stacked mounts too) comes off before it goes.
  for (
    let left = await mountsUnderTemp(), i = 0;
    left.length > 0 && i < 100;
    left = await mountsUnderTemp(), i++
  )
    for (const p of left.reverse()) execFileSync('umount', ['--lazy', p]);
  await rm(t, { recursive: true, force: true });
});

async function hostFile(): Promise<{ text: string; uid: number; gid: number; mode: number }> {
  const st = await stat(outside);
  return { text: await readFile(outside, 'utf8'), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
}
const UNTOUCHED = { text: HOST_TEXT, uid: 0, gid: 0, mode: 0o600 };

/** Mounts stacked anywhere under the temp dir. */
async function mountsUnderTemp(): Promise<string[]> {
  return (await readMountPoints()).filter((m) => m.startsWith(`${t}/`));
}

function world(source: PvSource = { hostPath: join(t, 'pv') }, block = false): HotplugWorld {
  return hotplugWorld({ source, block });
}

async function reconcile(
  w: Partial<HotplugWorld> & Pick<HotplugWorld, 'vmi'>,
  o: { podsDir?: string; inDomain?: string[]; vmi?: VirtualMachineInstance } = {},
): Promise<HotplugOutcome> {
  const m = await HotplugMounter.start({
    client: readerOf(w),
    node: NODE,
    kubeletPodsDir: o.podsDir ?? pods,
    log: nopLogger,
  });
  return m.reconcile(o.vmi ?? w.vmi, UIDS.launcher, new Set(o.inDomain ?? []));
}

const withoutVolume = (w: HotplugWorld): VirtualMachineInstance => ({
  ...w.vmi,
  spec: { ...w.vmi.spec, volumes: [] },
});

describe('HotplugMounter', () => {
  it('mounts a claim’s disk.img onto <volume>.img for QEMU, once, and takes it off when the volume goes', async () => {
    const w = world();
    const target = join(hotplugDir, 'hp.img');
    for (let i = 0; i < 3; i++) {
      const out = await reconcile(w);
      expect(out).toEqual({ mounted: new Set(['hp']), refused: new Map() });
    }
    expect(await mountCount(target)).toBe(1);
    expect(await readFile(target, 'utf8')).toBe('DISK');
    expect((await stat(join(t, 'pv/disk.img'))).uid).toBe(107);

    // Still a disk of the domain: kept; then gone from the domain too: unmounted and removed.
    expect((await reconcile(w, { vmi: withoutVolume(w), inDomain: ['hp'] })).mounted).toEqual(
      new Set(['hp']),
    );
    expect(await reconcile(w, { vmi: withoutVolume(w) })).toEqual({ mounted: new Set(), refused: new Map() });
    expect(await mountsUnderTemp()).toEqual([]);
    await expect(lstat(target)).rejects.toThrow(/ENOENT/);
  });

  it('on a migration target, mounts from the attachment Pod the migration names, not the one the status names', async () => {
    const w = world();
    // The status names the source node's attachment Pod, which this node does not have.
    const vmi = structuredClone(w.vmi);
    const status = vmi.status?.volumeStatus?.[0];
    if (status?.hotplugVolume === undefined) throw new Error('the world has no hotplug status');
    status.hotplugVolume = {
      attachPodName: 'hp-volume-src',
      attachPodUID: '44444444-4444-4444-8444-444444444444',
    };
    const m = await HotplugMounter.start({
      client: readerOf(w),
      node: NODE,
      kubeletPodsDir: pods,
      log: nopLogger,
    });
    await expect(m.reconcile(vmi, UIDS.launcher, new Set())).resolves.toMatchObject({ mounted: new Set() });
    await m.mountFromPod(vmi, UIDS.launcher, { name: 'hp-volume-abcde', uid: UIDS.attach });
    expect(await mountCount(join(hotplugDir, 'hp.img'))).toBe(1);
    // A Pod that is not this VMI's attachment Pod is refused, and the preparation fails saying so.
    await rm(join(hotplugDir, 'hp.img')).catch(() => undefined);
    const other = { name: 'hp-volume-src', uid: '44444444-4444-4444-8444-444444444444' };
    await m.release(vmi, UIDS.launcher);
    await expect(m.mountFromPod(vmi, UIDS.launcher, other)).rejects.toThrow(
      /failed to mount hotplug volumes/,
    );
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('releases every mount of a launcher Pod whose guest is gone, though the VMI still lists the volume', async () => {
    const w = world();
    await reconcile(w);
    const m = await HotplugMounter.start({
      client: readerOf(w),
      node: NODE,
      kubeletPodsDir: pods,
      log: nopLogger,
    });
    await expect(m.release(w.vmi, UIDS.launcher)).resolves.toEqual({
      mounted: new Set(),
      refused: new Map(),
    });
    expect(await mountsUnderTemp()).toEqual([]);
    await expect(lstat(join(hotplugDir, 'hp.img'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a disk.img that is a symlink to a node file: the file untouched, nothing mounted', async () => {
    await rm(join(t, 'pv/disk.img'));
    await symlink(outside, join(t, 'pv/disk.img'));
    const out = await reconcile(world());
    expect(await hostFile()).toEqual(UNTOUCHED);
    expect(await mountsUnderTemp()).toEqual([]);
    expect(out.mounted).toEqual(new Set());
    expect(out.refused.get('hp')).toBe(
      `failed to mount filesystem hotplug volume hp: ${join(t, 'pv/disk.img')} is a symbolic link`,
    );
  });

  it('refuses a symlink planted at the target: nothing written through it, nothing mounted', async () => {
    await symlink(outside, join(hotplugDir, 'hp.img'));
    const out = await reconcile(world());
    expect(await hostFile()).toEqual(UNTOUCHED);
    expect(await mountsUnderTemp()).toEqual([]);
    expect((await lstat(join(hotplugDir, 'hp.img'))).isSymbolicLink()).toBe(true);
    expect((await stat(join(t, 'pv/disk.img'))).uid).toBe(0);
    expect(out.refused.get('hp')).toBe(
      `failed to mount filesystem hotplug volume hp: ${join(hotplugDir, 'hp.img')} is a symbolic link`,
    );
  });

  it('refuses a disk.img that is a device node the tenant made, and a directory', async () => {
    await rm(join(t, 'pv/disk.img'));
    execFileSync('mknod', [join(t, 'pv/disk.img'), 'b', '7', '0']);
    expect((await reconcile(world())).refused.get('hp')).toMatch(/is a block device, not a regular file$/);
    await rm(join(t, 'pv/disk.img'));
    await mkdir(join(t, 'pv/disk.img'));
    expect((await reconcile(world())).refused.get('hp')).toMatch(/is a directory, not a regular file$/);
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('with the pods dir behind a symlink: one mount however often it runs, none once removed', async () => {
    const link = join(t, 'pods-link');
    await symlink(pods, link);
    const w = world();
    const target = join(hotplugDir, 'hp.img');
    for (let i = 0; i < 5; i++)
      expect((await reconcile(w, { podsDir: link })).mounted).toEqual(new Set(['hp']));
    expect(await mountCount(target)).toBe(1);
    expect((await reconcile(w, { podsDir: link, vmi: withoutVolume(w) })).mounted).toEqual(new Set());
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('takes off every mount an older handler stacked on a target', async () => {
    const target = join(hotplugDir, 'hp.img');
    await writeFile(target, '');
    for (let i = 0; i < 3; i++) execFileSync('mount', ['--bind', join(t, 'pv/disk.img'), target]);
    expect(await mountCount(target)).toBe(3);
    const w = world();
    expect((await reconcile(w, { vmi: withoutVolume(w) })).mounted).toEqual(new Set());
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('mounts nothing for a forged status: a Pending claim naming another namespace’s volume', async () => {
    // The victim's volume is bound to the victim's claim; the tenant's claim names it and stays Pending.
    await writeFile(join(t, 'pv/disk.img'), 'VICTIM');
    const w = world();
    w.pvc.status = { phase: 'Pending' };
    w.pv.spec = { ...w.pv.spec, claimRef: { namespace: 'victim', name: 'data', uid: UIDS.vmi } };
    w.vmi.status = {
      ...w.vmi.status,
      volumeStatus: (w.vmi.status?.volumeStatus ?? []).map((s) => ({ ...s, phase: 'Ready' })),
    };
    const unbound = await reconcile(w);
    // Bound, but to a volume whose claimRef is another claim.
    w.pvc.status = { phase: 'Bound' };
    const notOurs = await reconcile(w);
    // No attachment Pod at all.
    const noAttach: Partial<HotplugWorld> & Pick<HotplugWorld, 'vmi'> = { ...w };
    delete noAttach.attach;
    const noPod = await reconcile(noAttach);
    expect(await mountsUnderTemp()).toEqual([]);
    expect(await readFile(join(t, 'pv/disk.img'), 'utf8')).toBe('VICTIM');
    expect((await stat(join(t, 'pv/disk.img'))).uid).toBe(0);
    const why = (o: HotplugOutcome): string | undefined => o.refused.get('hp');
    expect([why(unbound), why(notOurs), why(noPod)]).toEqual([
      'failed to mount filesystem hotplug volume hp: claim tenant/hp-claim is not Bound (phase Pending)',
      `failed to mount filesystem hotplug volume hp: persistent volume ${PV_NAME} is not bound to claim tenant/hp-claim`,
      'failed to mount filesystem hotplug volume hp: attachment pod tenant/hp-volume-abcde not found',
    ]);
  });

  it('mounts a CSI claim from the attachment Pod’s mount, and refuses it when a directory on the way is a symlink', async () => {
    const csiMount = join(pods, UIDS.attach, 'volumes/kubernetes.io~csi', PV_NAME, 'mount');
    await mkdir(csiMount, { recursive: true });
    await writeFile(join(csiMount, 'disk.img'), 'CSI');
    const w = world('csi');
    expect((await reconcile(w)).mounted).toEqual(new Set(['hp']));
    expect(await readFile(join(hotplugDir, 'hp.img'), 'utf8')).toBe('CSI');
    expect((await reconcile(w, { vmi: withoutVolume(w) })).mounted).toEqual(new Set());

    await rm(join(csiMount, 'disk.img'));
    await symlink(outside, join(csiMount, 'disk.img'));
    const out = await reconcile(w);
    expect(out.refused.get('hp')).toMatch(/disk\.img is a symbolic link$/);
    expect(await hostFile()).toEqual(UNTOUCHED);
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('mounts a CSI block claim from the kubelet’s device map for the attachment Pod onto <volume>', async () => {
    const map = join(t, 'kubelet/plugins/kubernetes.io/csi/volumeDevices', PV_NAME, 'dev');
    await mkdir(map, { recursive: true });
    execFileSync('mknod', [join(map, UIDS.attach), 'b', '7', '0']);
    const w = world('csi', true);
    expect(await reconcile(w)).toEqual({ mounted: new Set(['hp']), refused: new Map() });
    expect((await stat(join(hotplugDir, 'hp'))).isBlockDevice()).toBe(true);
    expect(await mountCount(join(hotplugDir, 'hp'))).toBe(1);
    expect((await reconcile(w, { vmi: withoutVolume(w) })).mounted).toEqual(new Set());
    expect(await mountsUnderTemp()).toEqual([]);
  });

  it('refuses a launcher Pod uid that is not a UID before touching any path', async () => {
    const m = await HotplugMounter.start({
      client: readerOf(world()),
      node: NODE,
      kubeletPodsDir: pods,
      log: nopLogger,
    });
    await expect(m.reconcile(world().vmi, '../../etc', new Set())).rejects.toThrow(/is not a UID/);
  });

  it('does nothing while the launcher Pod has no hotplug directory', async () => {
    await rm(join(pods, UIDS.launcher), { recursive: true });
    expect(await reconcile(world())).toEqual({ mounted: new Set(), refused: new Map() });
  });
});
