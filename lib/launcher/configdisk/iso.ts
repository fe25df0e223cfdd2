/**
 * Writes an IsoImage with xorrisofs' arguments as KubeVirt uses them (`-volid <label> -joliet -rock`,
 * symlinks followed, graft points), run as `xorriso -pacifier interval=0.1 -as mkisofs` (what xorrisofs is):
 * with the default 1 s pacifier, xorriso now and then idles up to a second after the image is written
 * (measured: 110 ms typical, 600-1300 ms in about one run of six; with 0.1 s, 110 ms every time).
 * The image's directory belongs to the daemons' user, who may plant symlinks in it: all work happens in a
 * scratch directory of ours made inside it (mode 0700, checked to be ours, used by descriptor): the launcher's
 * own files (cloud-init user and meta data) in `files/`, which becomes the image's root, and the image itself,
 * made with O_EXCL|O_NOFOLLOW, handed to the daemons' user by descriptor and renamed over the old one, so a
 * reader never sees half an image. Mounted files are grafted where they are.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { KvError } from '../../kernel/errors/errors.ts';
import { UnsafePathError, withHandle, type SafeHandle } from '../../kernel/safepath/index.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import type { IsoImage, SourceFs } from './image.ts';

const XORRISO = '/usr/bin/xorriso';
const AS_XORRISOFS = ['-pacifier', 'interval=0.1', '-as', 'mkisofs'];
/** KubeVirt kills xorrisofs after 10 s. */
const XORRISOFS_TIMEOUT_MS = 10_000;

/** SourceFs over the real file system. */
export const nodeSourceFs: SourceFs = {
  list: (dir) => {
    try {
      return readdirSync(dir).sort();
    } catch {
      return undefined;
    }
  },
  isFile: (p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  },
  read: (p) => {
    try {
      return readFileSync(p);
    } catch {
      return undefined;
    }
  },
};

/** A graft point's target or source with xorrisofs' escapes (`\` and `=`). */
function escapeGraft(p: string): string {
  return p.replace(/\\/g, '\\\\').replace(/=/g, '\\=');
}

export interface XorrisofsArgs {
  readonly output: string;
  readonly label: string;
  /** Directory whose contents become the root of the image. */
  readonly rootDir: string;
  /** Further files or directories: path in the image → source. */
  readonly grafts: readonly { readonly path: string; readonly source: string }[];
}

/** The xorrisofs (mkisofs-style) arguments. Pure. */
export function xorrisofsArgs(a: XorrisofsArgs): string[] {
  return [
    ...['-output', a.output, '-follow-links', '-volid', a.label, '-joliet', '-rock'],
    ...['-graft-points', '-partition_cyl_align', 'on', `/=${escapeGraft(a.rootDir)}`],
    ...a.grafts.map((g) => `${escapeGraft(g.path)}=${escapeGraft(g.source)}`),
  ];
}

/** The launcher's own files of the image, written below `filesDir` (a path inside our scratch directory). */
async function stageContent(image: IsoImage, filesDir: string): Promise<XorrisofsArgs['grafts']> {
  const grafts: { path: string; source: string }[] = [];
  for (const f of image.files) {
    if ('sourceFile' in f) {
      grafts.push({ path: f.path, source: f.sourceFile });
      continue;
    }
    const p = join(filesDir, f.path);
    await mkdir(dirname(p), { recursive: true, mode: 0o755 });
    await writeFile(p, f.content, { mode: 0o600 });
  }
  return grafts;
}

/** Runs xorrisofs with the scratch directory as its fd 3 (`/proc/self/fd/3`), within KubeVirt's timeout. */
function runXorriso(args: readonly string[], scratch: SafeHandle): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(XORRISO, [...AS_XORRISOFS, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', scratch.fd],
      timeout: XORRISOFS_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new KvError('KV_ERR_CONFIG', `xorrisofs failed (${signal ?? String(code)}): ${stderr.trim()}`),
        );
    });
  });
}

/** A new directory of ours in `dir` (0700); refused when what the name holds is not the one we made. */
async function makeScratch(dir: SafeHandle, name: string): Promise<SafeHandle> {
  await mkdir(`${dir.procPath}/${name}`, { mode: 0o700 });
  const scratch = await dir.open([name], ['directory']);
  if (scratch.stat.uid !== process.geteuid?.() || (scratch.stat.mode & 0o077) !== 0) {
    await scratch.close();
    throw new UnsafePathError('wrong-kind', scratch.path, `${scratch.path} was replaced while being made`);
  }
  return scratch;
}

const IMAGE = 'image.iso';
const FILES = 'files';

/** Builds the image in `scratch` and renames it to `name` in `dir`, handed to `identity`. */
async function buildIn(o: {
  image: IsoImage;
  dir: SafeHandle;
  scratch: SafeHandle;
  identity: Identity;
}): Promise<void> {
  const { image, dir, scratch } = o;
  // Inside our 0700 directory nobody else can plant anything: paths through its descriptor are safe.
  await mkdir(`${scratch.procPath}/${FILES}`, { mode: 0o755 });
  const grafts = await stageContent(image, `${scratch.procPath}/${FILES}`);
  await withHandle(scratch.createFile(IMAGE, 0o600), async (iso) => {
    const fd3 = '/proc/self/fd/3';
    const args = xorrisofsArgs({
      output: `${fd3}/${IMAGE}`,
      label: image.label,
      rootDir: `${fd3}/${FILES}`,
      grafts,
    });
    await runXorriso(args, scratch);
    await iso.chmod(0o600);
    if (o.identity.name !== 'self') await iso.chown(o.identity.uid, o.identity.gid);
  });
  await rename(`${scratch.procPath}/${IMAGE}`, `${dir.procPath}/${basename(image.isoPath)}`);
}

/**
 * Builds the image and puts it at image.isoPath, owned by `identity`; `dir` is that path's directory, opened
 * by the caller without following symlinks.
 */
export async function writeIso(image: IsoImage, dir: SafeHandle, identity: Identity): Promise<void> {
  const name = `.${basename(image.isoPath)}.${randomBytes(6).toString('hex')}`;
  try {
    await withHandle(makeScratch(dir, name), async (scratch) => {
      try {
        await buildIn({ image, dir, scratch, identity });
      } finally {
        await rm(`${scratch.procPath}/${FILES}`, { recursive: true, force: true });
        await rm(`${scratch.procPath}/${IMAGE}`, { force: true });
      }
    });
  } catch (err) {
    const what = `the ISO image ${image.isoPath} of volume ${image.volume}`;
    throw new KvError('KV_ERR_CONFIG', `cannot write ${what}`, { cause: err });
  } finally {
    // Empty by now; whatever else the name may hold (a swap) is left alone.
    await rmdir(`${dir.procPath}/${name}`).catch(() => undefined);
  }
}
