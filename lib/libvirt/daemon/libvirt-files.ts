/**
 * The files root makes for the launcher's libvirt under --root (layout.ts): its directories, the daemons'
 * config files (qemu.conf: qemu-conf.ts) and output logs, and the QEMU capabilities cache seeded from (and saved back to) a shared one.
 * From the first start on those directories belong to the daemons' user, who may have left symlinks there:
 * below the two trusted roots `<root>/lv` and `<root>/var/run/libvirt` (their parents are ours) every file is
 * made, replaced and read by descriptor, as kubevirt pkg/safepath does for virt-handler.
 *
 * libvirtd.conf names the daemon's host UUID. libvirt refuses a migration whose two ends report the same one
 * ("Attempt to migrate guest to the same host"). KubeVirt writes none: libvirt then takes the node's SMBIOS
 * UUID, which differs between nodes; launchers that share a host here would share it, so each daemon start
 * is given a UUID of its own.
 */
import { constants as fsConstants, existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import {
  mkdirBeneath,
  openBeneath,
  replaceFileIn,
  SafeHandle,
  UnsafePathError,
  withHandle,
} from '../../kernel/safepath/index.ts';
import type { LibvirtLayout } from './layout.ts';
import { qemuConf } from './qemu-conf.ts';

const capsDir = (cache: string): string => join(cache, 'libvirt', 'qemu', 'cache', 'capabilities');

/** A directory of the layout as a path below its runtime directory. */
const belowRun = (layout: LibvirtLayout, p: string): string => relative(layout.run, p);

async function seedCaps(run: SafeHandle, rel: string, from: string): Promise<number> {
  if (!existsSync(from)) return 0;
  const files = (await readdir(from)).filter((f) => f.endsWith('.xml'));
  await withHandle(mkdirBeneath(run, rel), async (dir) => {
    for (const f of files) await replaceFileIn(dir, f, await readFile(join(from, f)), 0o644);
  });
  return files.length;
}

/** The daemon's config: its socket directory, its log, its host UUID. Pure. */
function libvirtdConf(layout: Pick<LibvirtLayout, 'sock' | 'log'>, hostUuid: string): string {
  return [
    `unix_sock_dir = "${layout.sock}"`,
    `log_outputs = "3:file:${layout.log}/libvirtd.log"`,
    `host_uuid = "${hostUuid}"`,
    '',
  ].join('\n');
}

/** Makes the directories and config files; returns how many cached capabilities were seeded. */
export async function prepareLibvirtFiles(
  layout: LibvirtLayout,
  o: { root: string; hostUuid: string; capsCache?: string; hugetlbfs?: string | undefined },
): Promise<number> {
  // The daemons' user must be able to walk into the root (mkdtemp makes it 0700).
  if (resolve(o.root) !== '/') await chmod(o.root, 0o755);
  await mkdir(layout.config, { recursive: true });
  await mkdir(layout.run, { recursive: true });
  await withHandle(SafeHandle.root(layout.config), async (config) => {
    const libvirtd = libvirtdConf(layout, o.hostUuid);
    await replaceFileIn(config, basename(layout.libvirtdConf), libvirtd, 0o644);
    const virtlogd = `log_outputs = "3:file:${layout.log}/virtlogd.log"\n`;
    await replaceFileIn(config, basename(layout.virtlogdConf), virtlogd, 0o644);
    await withHandle(mkdirBeneath(config, 'libvirt'), (dir) =>
      replaceFileIn(dir, 'qemu.conf', qemuConf({ hugetlbfs: o.hugetlbfs }), 0o644),
    );
  });
  return withHandle(SafeHandle.root(layout.run), async (run) => {
    for (const d of [layout.cache, layout.home, layout.log, layout.sock])
      await (await mkdirBeneath(run, belowRun(layout, d))).close();
    if (o.capsCache === undefined) return 0;
    return seedCaps(run, belowRun(layout, capsDir(layout.cache)), o.capsCache);
  });
}

/** A regular file `name` of `dir`, kept when it is one, otherwise made anew (what else was there is removed). */
async function plainFileIn(dir: SafeHandle, name: string): Promise<SafeHandle> {
  try {
    return await dir.createFile(name, 0o644, { reuse: true });
  } catch (err) {
    if (!(err instanceof UnsafePathError) || !['symlink', 'wrong-kind'].includes(err.reason)) throw err;
    await unlink(`${dir.procPath}/${name}`);
    return dir.createFile(name, 0o644);
  }
}

/** `<log>/<name>.out` opened for appending, for a daemon's stdout and stderr. */
export function openDaemonLog(layout: LibvirtLayout, name: string): Promise<FileHandle> {
  return withHandle(openBeneath(layout.run, belowRun(layout, layout.log), ['directory']), (dir) =>
    withHandle(plainFileIn(dir, `${name}.out`), (log) =>
      log.reopen(fsConstants.O_WRONLY | fsConstants.O_APPEND),
    ),
  );
}

async function readPlainFile(dir: SafeHandle, name: string): Promise<Buffer | undefined> {
  try {
    return await withHandle(dir.open([name], ['file']), async (h) => {
      const f = await h.reopen(fsConstants.O_RDONLY);
      try {
        return await f.readFile();
      } finally {
        await f.close();
      }
    });
  } catch (err) {
    if (err instanceof UnsafePathError) return undefined;
    throw err;
  }
}

/** Copies the daemons' cached capabilities (regular files only, never through a link) back to `to`. */
export async function saveCaps(layout: LibvirtLayout, to: string): Promise<number> {
  let dir: SafeHandle;
  try {
    dir = await openBeneath(layout.run, belowRun(layout, capsDir(layout.cache)), ['directory']);
  } catch (err) {
    if (err instanceof UnsafePathError) return 0;
    throw err;
  }
  return withHandle(dir, async () => {
    await mkdir(to, { recursive: true });
    let saved = 0;
    for (const f of (await readdir(dir.procPath)).filter((n) => n.endsWith('.xml'))) {
      const content = await readPlainFile(dir, f);
      if (content === undefined) continue;
      await withHandle(SafeHandle.root(to), (target) => replaceFileIn(target, f, content, 0o644));
      saved++;
    }
    return saved;
  });
}
