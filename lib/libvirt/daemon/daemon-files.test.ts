// What root does in directories the daemons' user owns (root mode): links planted there are never followed.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { giveTree, ownedDir, type Identity } from './identity.ts';
import { libvirtLayout } from './layout.ts';
import { openDaemonLog, prepareLibvirtFiles, saveCaps } from './libvirt-files.ts';

const DAEMON: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
let dir = '';
let outside = '';
let precious = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-daemon-files-'));
  outside = await mkdtemp(join(tmpdir(), 'kv-daemon-outside-'));
  precious = join(outside, 'precious');
  await writeFile(precious, 'precious\n', { mode: 0o640 });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Content, owner, group and mode of the host file, and what the outside directory holds. */
async function host(): Promise<unknown[]> {
  const st = await stat(precious);
  const o = await stat(outside);
  return [await readFile(precious, 'utf8'), st.uid, st.gid, st.mode, o.uid, o.mode, await readdir(outside)];
}

const HOST_UUID = '6f1d1c52-95a4-4d5e-9c1e-2b3f4a5b6c7d';

describe('giveTree', () => {
  it('hands every directory and file below the root to the user, and nothing a link points to', async () => {
    const want = await host();
    await mkdir(join(dir, 'a/b'), { recursive: true });
    await writeFile(join(dir, 'a/b/file'), '');
    await symlink(precious, join(dir, 'a/planted'));
    await symlink(outside, join(dir, 'a/b/dir-link'));
    await giveTree(dir, DAEMON);
    for (const p of ['', 'a', 'a/b', 'a/b/file']) expect((await stat(join(dir, p))).uid).toBe(DAEMON.uid);
    expect((await lstat(join(dir, 'a/planted'))).isSymbolicLink()).toBe(true);
    expect(await host()).toEqual(want);
  });
});

describe('ownedDir', () => {
  it('makes the directory below the root for the user, and refuses a link on the way', async () => {
    await (await ownedDir({ root: dir, rel: 'x/y', id: DAEMON, mode: 0o750 })).close();
    expect(await stat(join(dir, 'x/y'))).toMatchObject({ uid: DAEMON.uid, mode: 0o40750 });
    expect((await stat(join(dir, 'x'))).uid).toBe(process.getuid?.());
    const want = await host();
    await symlink(outside, join(dir, 'link'));
    await expect(ownedDir({ root: dir, rel: 'link/y', id: DAEMON, mode: 0o755 })).rejects.toMatchObject({
      code: 'KV_ERR_UNSAFE_PATH',
      reason: 'symlink',
    });
    expect(await host()).toEqual(want);
  });
});

describe("the launcher libvirt's files", () => {
  it('replaces config files and logs planted as links, and saves no linked capabilities', async () => {
    const layout = libvirtLayout(dir);
    const caps = join(layout.cache, 'libvirt/qemu/cache/capabilities');
    await mkdir(caps, { recursive: true });
    await mkdir(layout.log, { recursive: true });
    await mkdir(layout.config, { recursive: true });
    await symlink(precious, layout.libvirtdConf);
    await symlink(precious, join(layout.log, 'libvirtd.out'));
    await symlink(precious, join(caps, 'stolen.xml'));
    await mkdir(join(layout.config, 'libvirt'));
    await symlink(precious, join(layout.config, 'libvirt/qemu.conf'));
    await writeFile(join(caps, 'real.xml'), '<qemuCaps/>');
    const want = await host();
    const shared = join(dir, 'shared-cache');
    await prepareLibvirtFiles(layout, { root: dir, hostUuid: HOST_UUID, hugetlbfs: '/dev/hugepages' });
    const log = await openDaemonLog(layout, 'libvirtd');
    await log.write('daemon output\n');
    await log.close();
    expect(await saveCaps(layout, shared)).toBe(1);
    expect(await host()).toEqual(want);
    expect(await readFile(layout.libvirtdConf, 'utf8')).toContain('unix_sock_dir');
    expect(await readFile(layout.libvirtdConf, 'utf8')).toContain(`host_uuid = "${HOST_UUID}"`);
    expect(await readFile(join(layout.config, 'libvirt/qemu.conf'), 'utf8')).toContain(
      'hugetlbfs_mount = "/dev/hugepages"',
    );
    expect(await readFile(join(layout.log, 'libvirtd.out'), 'utf8')).toBe('daemon output\n');
    expect(await readdir(shared)).toEqual(['real.xml']);
  });
});
