/**
 * Finds the disk file of each containerDisk in the image volume the Pod mounts for it
 * (`layout.containerDiskDir(index in spec.volumes)`, lib/rpc/pod-layout.ts): the volume's `path`
 * when given (it must exist inside the image), otherwise the only file under `disk/` (KubeVirt's image-volume
 * layout: a containerDisk image holds exactly one disk in /disk). The image is the tenant's: its symlinks are
 * resolved inside the image volume, as if it were the root (kubevirt pkg/container-disk GetImage with
 * safepath), so the file found, and the path the domain gets, never lies outside it. A hotpluggable
 * containerDisk has no image volume in the Pod: the node mounts its disk file into the hotplug directory.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import { resolveBeneath, UnsafePathError, type PathKind } from '../../kernel/safepath/index.ts';
import type { PodLayout } from '../../rpc/index.ts';

const DEFAULT_DIR = 'disk';

function fail(index: number, message: string, cause?: unknown): KvError {
  return new KvError('KV_ERR_CONFIG', `spec.volumes[${index}].containerDisk: ${message}`, { cause });
}

function notFound(err: unknown): boolean {
  return err instanceof UnsafePathError && err.reason === 'not-found';
}

async function givenPath(base: string, index: number, p: string): Promise<string> {
  let found: { parts: string[]; kind: PathKind };
  try {
    found = await resolveBeneath(base, p);
  } catch (err) {
    const looked = path.join(base, path.posix.normalize(`/${p}`));
    if (notFound(err)) throw fail(index, `path ${p} is not in the image (looked for ${looked})`, err);
    throw fail(index, `path ${p}: ${errorMessage(err)}`, err);
  }
  if (found.kind !== 'file') throw fail(index, `path ${p} in the image is not a file`);
  return path.join(base, ...found.parts);
}

async function onlyFile(base: string, index: number): Promise<string> {
  let dir: string[];
  try {
    const found = await resolveBeneath(base, DEFAULT_DIR);
    if (found.kind !== 'directory') throw new UnsafePathError('not-found', DEFAULT_DIR, 'not a directory');
    dir = found.parts;
  } catch (err) {
    const looked = path.join(base, DEFAULT_DIR);
    throw fail(index, `the image has no /${DEFAULT_DIR} directory (looked in ${looked}); set path`, err);
  }
  const names = await readdir(path.join(base, ...dir));
  const [first, ...rest] = names.sort();
  if (first === undefined) throw fail(index, `no file in /${DEFAULT_DIR} of the image, no disk present`);
  if (rest.length > 0) {
    throw fail(index, `more than one file in /${DEFAULT_DIR} of the image (${names.join(', ')}); set path`);
  }
  try {
    return await givenPath(base, index, [...dir, first].join('/'));
  } catch (err) {
    throw fail(index, `/${DEFAULT_DIR}/${first} is not a file inside the image`, err);
  }
}

/** Volume name → absolute path of its disk file, for every containerDisk of the VMI the Pod mounts. */
export async function findContainerDiskImages(
  vmi: VirtualMachineInstance,
  layout: Pick<PodLayout, 'containerDiskDir'>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const volumes = vmi.spec.volumes ?? [];
  for (const [index, v] of volumes.entries()) {
    const cd = v.containerDisk;
    if (cd === undefined || cd.hotpluggable === true) continue;
    const base = layout.containerDiskDir(index);
    const p = cd.path ?? '';
    out.set(v.name, p === '' ? await onlyFile(base, index) : await givenPath(base, index, p));
  }
  return out;
}
