/**
 * The format of a containerDisk's image when the handler did not say (VirtualMachineOptions.DisksInfo):
 * `qemu-img info` on the file, run by the launcher inside its unprivileged Pod (KubeVirt's handler runs the
 * same probe, kubevirt pkg/virt-handler/container-disk). Only raw and qcow2 images are used, and a qcow2 image
 * may not name a backing file of its own (KubeVirt refuses those too): the overlay's backing format is this
 * format, so a qcow2 image is no longer handed to the guest as raw bytes.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { VirtualMachineInstance } from '../../api/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { ImageFormat } from '../converter/index.ts';
import { QEMU_IMG } from './prestart.ts';

const run = promisify(execFile);

/** The format in `qemu-img info --output=json`, or why the image cannot be used. Pure. */
export function formatOfInfo(json: string): ImageFormat | { readonly problem: string } {
  let info: unknown;
  try {
    info = JSON.parse(json);
  } catch {
    return { problem: 'qemu-img info gave no JSON' };
  }
  const i = (typeof info === 'object' && info !== null ? info : {}) as Record<string, unknown>;
  const format = i['format'];
  if (format !== 'raw' && format !== 'qcow2')
    return { problem: `image format ${JSON.stringify(format ?? null)} is not supported (raw or qcow2)` };
  if (typeof i['backing-filename'] === 'string')
    return { problem: 'the image names a backing file, which is not allowed' };
  return format;
}

/** Volume name → format of every containerDisk image, `known` (the handler's) first. */
export async function containerDiskFormats(
  vmi: VirtualMachineInstance,
  images: ReadonlyMap<string, string>,
  known: ReadonlyMap<string, ImageFormat>,
): Promise<Map<string, ImageFormat>> {
  const out = new Map(known);
  for (const [index, v] of (vmi.spec.volumes ?? []).entries()) {
    const file = images.get(v.name);
    if (file === undefined || out.has(v.name)) continue;
    let stdout: string;
    try {
      ({ stdout } = await run(QEMU_IMG, ['info', '--output=json', '-U', file], { timeout: 30_000 }));
    } catch (err) {
      throw new KvError(
        'KV_ERR_CONFIG',
        `spec.volumes[${index}].containerDisk: cannot read ${file} with qemu-img info`,
        {
          cause: err,
        },
      );
    }
    const f = formatOfInfo(stdout);
    if (typeof f !== 'string')
      throw new KvError('KV_ERR_CONFIG', `spec.volumes[${index}].containerDisk: ${f.problem}`);
    out.set(v.name, f);
  }
  return out;
}
