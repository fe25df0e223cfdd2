/**
 * The hotplug mounter with a hotplugged containerDisk (the Deckhouse fork's ISO), on a real filesystem (as
 * root, in temp dirs): the image is a directory standing for the runtime's mount of the attachment Pod's image
 * volume (handed over by a fake locator), its disk file is bind-mounted read-only onto <volume>.img, never
 * chowned, and a tenant's symlink out of the image, a second file in disk/ or a directory where the file
 * should be is refused with nothing mounted.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { appendFile, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { mountCount, readMountPoints } from '../../kernel/host/mounts.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import type { ImageLocator } from './image-locator.ts';
import { HotplugMounter } from './mounter.ts';
import type { HotplugOutcome } from './plan.ts';
import { imageWorld, NODE, readerOf, UIDS, type HotplugWorld } from './testing/world.ts';

let t = '';
let pods = '';
let hotplugDir = '';
let image = '';
let outside = '';

beforeEach(async () => {
  t = await mkdtemp(join(tmpdir(), 'hotplug-image-'));
  pods = join(t, 'kubelet/pods');
  hotplugDir = join(pods, UIDS.launcher, 'volumes/kubernetes.io~empty-dir/hotplug-disks');
  await mkdir(hotplugDir, { recursive: true });
  image = join(t, 'image-volume');
  await mkdir(join(image, 'disk'), { recursive: true });
  await writeFile(join(image, 'disk/ubuntu.iso'), 'ISO', { mode: 0o644 });
  outside = join(t, 'host-secret');
  await writeFile(outside, 'a file of the node', { mode: 0o600 });
});

afterEach(async () => {
  for (let left = await under(), i = 0; left.length > 0 && i < 100; left = await under(), i++)
    for (const p of left.reverse()) execFileSync('umount', ['--lazy', p]);
  await rm(t, { recursive: true, force: true });
});

async function under(): Promise<string[]> {
  return (await readMountPoints()).filter((m) => m.startsWith(`${t}/`));
}

async function reconcile(
  w: HotplugWorld,
  o: { vmi?: VirtualMachineInstance; locator?: ImageLocator; asked?: string[] } = {},
): Promise<HotplugOutcome> {
  const asked = o.asked ?? [];
  const locator: ImageLocator =
    o.locator ??
    ((uid, mountPath) => {
      asked.push(`${uid} ${mountPath}`);
      return Promise.resolve(image);
    });
  const m = await HotplugMounter.start({
    client: readerOf(w),
    node: NODE,
    kubeletPodsDir: pods,
    log: nopLogger,
    imageLocator: locator,
  });
  return m.reconcile(o.vmi ?? w.vmi, UIDS.launcher, new Set());
}

const refusal = (why: string): string => `failed to mount filesystem hotplug volume hp: ${why}`;

describe('HotplugMounter: a hotplugged containerDisk', () => {
  it('bind-mounts the one file of disk/ read-only onto hp.img, never chowned, and takes it off when it goes', async () => {
    const w = imageWorld();
    const asked: string[] = [];
    for (let i = 0; i < 2; i++)
      expect(await reconcile(w, { asked })).toEqual({ mounted: new Set(['hp']), refused: new Map() });
    expect(asked).toEqual([`${UIDS.attach} /images/hp`]);
    const target = join(hotplugDir, 'hp.img');
    expect(await mountCount(target)).toBe(1);
    expect(await readFile(target, 'utf8')).toBe('ISO');
    await expect(appendFile(target, 'x')).rejects.toThrow(/EROFS/);
    expect((await stat(join(image, 'disk/ubuntu.iso'))).uid).toBe(0);

    const gone: VirtualMachineInstance = { ...w.vmi, spec: { ...w.vmi.spec, volumes: [] } };
    expect(await reconcile(w, { vmi: gone })).toEqual({ mounted: new Set(), refused: new Map() });
    expect(await under()).toEqual([]);
    await expect(lstat(target)).rejects.toThrow(/ENOENT/);
  });

  it('takes the containerDisk’s path, its links resolved inside the image', async () => {
    await mkdir(join(image, 'isos'));
    await writeFile(join(image, 'isos/real.iso'), 'REAL');
    await symlink('/isos/real.iso', join(image, 'isos/current.iso'));
    const out = await reconcile(imageWorld({ path: '/isos/current.iso' }));
    expect(out.refused).toEqual(new Map());
    expect(await readFile(join(hotplugDir, 'hp.img'), 'utf8')).toBe('REAL');
  });

  it.each<[string, () => Promise<void>, RegExp]>([
    [
      'a symlink in disk/ out of the image (resolved inside it: not there)',
      async () => {
        await rm(join(image, 'disk/ubuntu.iso'));
        await symlink(outside, join(image, 'disk/ubuntu.iso'));
      },
      /is not a file inside the image/,
    ],
    [
      'two files in disk/',
      async () => {
        await writeFile(join(image, 'disk/second.iso'), 'X');
      },
      /more than one file in \/disk of the image \(second.iso, ubuntu.iso\); set path/,
    ],
    [
      'a directory where the disk file should be',
      async () => {
        await rm(join(image, 'disk/ubuntu.iso'));
        await mkdir(join(image, 'disk/ubuntu.iso'));
      },
      /is not a file inside the image/,
    ],
    [
      'no disk/ directory',
      async () => {
        await rm(join(image, 'disk'), { recursive: true });
      },
      /the image has no \/disk directory/,
    ],
  ])('refuses %s: nothing mounted, the node file untouched', async (_, spoil, why) => {
    await spoil();
    const out = await reconcile(imageWorld());
    expect(out.mounted).toEqual(new Set());
    expect(out.refused.get('hp')).toMatch(why);
    expect(out.refused.get('hp')?.startsWith(refusal('image at /images/hp: '))).toBe(true);
    expect(await under()).toEqual([]);
    expect(await readFile(outside, 'utf8')).toBe('a file of the node');
  });

  it('refuses when the image cannot be found on the node, naming why', async () => {
    const locator: ImageLocator = () =>
      Promise.reject(new Error('no process of attachment pod x mounts /images/hp'));
    const out = await reconcile(imageWorld(), { locator });
    expect(out.refused.get('hp')).toBe(refusal('no process of attachment pod x mounts /images/hp'));
    expect(await under()).toEqual([]);
  });

  it.each<[string, (w: HotplugWorld) => void, string]>([
    [
      'another image than the VMI’s',
      (w) => {
        w.attach.spec['volumes'] = [{ name: 'hp', image: { reference: 'evil:1' } }];
      },
      'does not mount image dvcr.example/cvi/iso:1 as volume hp',
    ],
    [
      'the image not mounted at its path',
      (w) => {
        w.attach.spec.containers = [
          { name: 'hotplug-disk', image: 'x', volumeMounts: [{ name: 'hp', mountPath: '/elsewhere' }] },
        ];
      },
      'does not mount image dvcr.example/cvi/iso:1 as volume hp',
    ],
  ])('refuses an attachment Pod with %s: the locator is never asked', async (_, spoil, why) => {
    const w = imageWorld();
    spoil(w);
    const asked: string[] = [];
    const out = await reconcile(w, { asked });
    expect(out.refused.get('hp')).toBe(refusal(`attachment pod tenant/hp-volume-abcde ${why}`));
    expect(asked).toEqual([]);
  });
});
