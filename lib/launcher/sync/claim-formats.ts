/**
 * The format of each image on a filesystem claim, found before the domain is converted. Deckhouse's fork
 * writes qcow2 there and reads every such file as qcow2 (its patch 021 on kubevirt converter.go
 * Convert_v1_FilesystemVolumeSource_To_api_Disk and host-disk.go); here the image's own header decides, so a
 * raw image another client wrote stays raw. The check is image-format.ts's: qcow2 or raw only, no backing
 * file, no external data file, qemu-img info run with the format named. An image the launcher is about to
 * make is qcow2 (claim-image.ts makes it so); any other missing image is an error.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import type { ClaimImage, Disk, ImageFormat } from '../converter/index.ts';
import { imageFormat } from './image-format.ts';

/**
 * Formats of the images the domain already has, by volume: a disk whose source, or whose overlay's backing
 * store, is the image's file. Pure.
 */
export function formatsInUse(
  disks: readonly Disk[],
  images: readonly ClaimImage[],
): Map<string, ImageFormat> {
  const byFile = new Map<string, ImageFormat>();
  for (const d of disks) {
    const bs = d.backingStore;
    if (bs?.source.file !== undefined) byFile.set(bs.source.file, bs.format);
    else if (d.source.file !== undefined) byFile.set(d.source.file, d.driver.type);
  }
  const out = new Map<string, ImageFormat>();
  for (const image of images) {
    const format = byFile.get(image.file);
    if (format !== undefined) out.set(image.volume, format);
  }
  return out;
}

/**
 * Volume name → format of each claim image. The images in `known` (those the running domain uses, looked at
 * when it got them) are not read again, so what a guest writes over the start of its raw disk never makes it
 * a qcow2 image while it runs.
 */
export async function claimDiskFormats(
  images: readonly ClaimImage[],
  o: { readonly known: ReadonlyMap<string, ImageFormat>; readonly identity: Identity },
): Promise<Map<string, ImageFormat>> {
  const out = new Map<string, ImageFormat>();
  for (const image of images) {
    const known = o.known.get(image.volume);
    if (known !== undefined) {
      out.set(image.volume, known);
      continue;
    }
    const field = `volume ${image.volume} (${image.field})`;
    const format = await imageFormat(image.file, field, { identity: o.identity, probe: true });
    if (format === undefined && !image.creatable)
      throw new KvError('KV_ERR_CONFIG', `${field}: its image ${image.file} does not exist`);
    out.set(image.volume, format ?? 'qcow2');
  }
  return out;
}
