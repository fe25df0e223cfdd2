/**
 * Finds the disk file of each containerDisk in the image volume the Pod mounts for it
 * (`layout.containerDiskDir(index in spec.volumes)`, lib/rpc/pod-layout.ts): the volume's `path`
 * when given (it must exist inside the image), otherwise the only file under `disk/` (KubeVirt's image-volume
 * layout: a containerDisk image holds exactly one disk in /disk).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { VirtualMachineInstance } from '../../api/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { PodLayout } from '../../rpc/index.ts';

const DEFAULT_DIR = 'disk';

function fail(index: number, message: string, cause?: unknown): KvError {
  return new KvError('KV_ERR_CONFIG', `spec.volumes[${index}].containerDisk: ${message}`, { cause });
}

async function givenPath(base: string, index: number, p: string): Promise<string> {
  const file = path.join(base, path.posix.normalize(`/${p}`));
  try {
    if ((await stat(file)).isFile()) return file;
  } catch (err) {
    throw fail(index, `path ${p} is not in the image (looked for ${file})`, err);
  }
  throw fail(index, `path ${p} in the image is not a file`);
}

async function onlyFile(base: string, index: number): Promise<string> {
  const dir = path.join(base, DEFAULT_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw fail(index, `the image has no /${DEFAULT_DIR} directory (looked in ${dir}); set path`, err);
  }
  const [first, ...rest] = names.sort();
  if (first === undefined) throw fail(index, `no file in /${DEFAULT_DIR} of the image, no disk present`);
  if (rest.length > 0) {
    throw fail(index, `more than one file in /${DEFAULT_DIR} of the image (${names.join(', ')}); set path`);
  }
  return path.join(dir, first);
}

/** Volume name → absolute path of its disk file, for every containerDisk of the VMI. */
export async function findContainerDiskImages(
  vmi: VirtualMachineInstance,
  layout: Pick<PodLayout, 'containerDiskDir'>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const volumes = vmi.spec.volumes ?? [];
  for (const [index, v] of volumes.entries()) {
    const cd = v.containerDisk;
    if (cd === undefined) continue;
    const base = layout.containerDiskDir(index);
    const p = cd.path ?? '';
    out.set(v.name, p === '' ? await onlyFile(base, index) : await givenPath(base, index, p));
  }
  return out;
}
