/**
 * Finds the disk file of each containerDisk in the image volume the Pod mounts for it
 * (`layout.containerDiskDir(index in spec.volumes)`, lib/rpc/pod-layout.ts), as lib/rpc/container-disk-file.ts
 * tells it: its `path`, or the only file under `disk/`, symlinks resolved inside the image, so the path the
 * domain gets never lies outside it. A hotpluggable
 * containerDisk has no image volume in the Pod: the node mounts its disk file into the hotplug directory.
 */
import path from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { containerDiskFile, type PodLayout } from '../../rpc/index.ts';

function fail(index: number, message: string, cause?: unknown): KvError {
  return new KvError('KV_ERR_CONFIG', `spec.volumes[${index}].containerDisk: ${message}`, { cause });
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
    const parts = await containerDiskFile(base, p, (message, cause) => fail(index, message, cause));
    out.set(v.name, path.join(base, ...parts));
  }
  return out;
}
