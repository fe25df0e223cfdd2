/**
 * Test helpers: a SourceFs over an in-memory tree, the files of an IsoImage as text, and what a written ISO
 * really holds (xorriso). Test code only.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { IsoImage, SourceFs } from '../image.ts';

/** Files by absolute path; directories are the parents of the files (and `dirs`, for empty ones). */
export function fakeFs(files: Readonly<Record<string, string>>, dirs: readonly string[] = []): SourceFs {
  const children = new Map<string, Set<string>>(dirs.map((d) => [d, new Set<string>()]));
  for (const f of Object.keys(files)) {
    for (let p = f; path.dirname(p) !== p; p = path.dirname(p)) {
      const parent = path.dirname(p);
      const set = children.get(parent) ?? new Set<string>();
      set.add(path.basename(p));
      children.set(parent, set);
    }
  }
  return {
    list: (dir): string[] | undefined => {
      const set = children.get(dir);
      return set === undefined ? undefined : [...set].sort();
    },
    isFile: (p): boolean => files[p] !== undefined,
    read: (p): Buffer | undefined => {
      const text = files[p];
      return text === undefined ? undefined : Buffer.from(text, 'utf8');
    },
  };
}

/** path → text content or `<source file>` of every file of an image. */
export function imageFiles(image: IsoImage | undefined): Record<string, string> {
  return Object.fromEntries(
    (image?.files ?? []).map((f) => [
      f.path,
      'content' in f ? f.content.toString('utf8') : `<${f.sourceFile}>`,
    ]),
  );
}

const run = promisify(execFile);

/** Every regular file of an ISO image (xorriso extraction), path → content. */
export async function isoContents(iso: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kv-iso-'));
  try {
    await run('/usr/bin/xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', dir]);
    const out: Record<string, string> = {};
    for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const p = path.join(e.parentPath, e.name);
      out[path.relative(dir, p)] = await readFile(p, 'utf8');
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The ISO 9660 volume id of an image. */
export async function isoVolumeId(iso: string): Promise<string> {
  const { stdout } = await run('/usr/bin/xorriso', ['-indev', iso, '-pvd_info']);
  return /^Volume Id\s*:\s*(.*)$/m.exec(stdout)?.[1]?.trim() ?? '';
}

/** What kubelet leaves for a configMap or secret volume: a timestamped directory, `..data` and a link per key. */
export function mountConfigMap(dir: string, data: Readonly<Record<string, string>>): void {
  const stamp = path.join(dir, '..2026_01_01_00_00_00.000000001');
  mkdirSync(stamp, { recursive: true });
  symlinkSync(stamp, path.join(dir, '..data'));
  for (const [key, value] of Object.entries(data)) {
    writeFileSync(path.join(stamp, key), value);
    symlinkSync(path.join('..data', key), path.join(dir, key));
  }
}
