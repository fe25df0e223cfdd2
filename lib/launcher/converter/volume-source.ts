/**
 * What backs a disk, in the launcher's view (kubevirt Convert_v1_Volume_To_api_Disk and the path helpers of
 * pkg/container-disk, ephemeral-disk, emptydisk, host-disk, cloud-init and config):
 * - containerDisk: a qcow2 overlay in `<ephemeral>/disk-data/<vol>/disk.qcow2` over the image file in the
 *   image volume `<imageVolumes>/disk_<i>/` (its `path`, or the one file under `disk/`);
 * - persistentVolumeClaim / dataVolume: `<private>/vmi-disks/<vol>/disk.img` in the format the launcher found
 *   (Deckhouse's fork makes these qcow2, its patch 021), or the raw device `<dev>/<vol>` in block mode
 *   (hotplugged ones under the hotplug directory);
 * - a hotplugged containerDisk (the Deckhouse fork's patch 031): the image's disk file itself, which the node
 *   mounts read-only at `<hotplug>/<vol>.img`, read-only in the domain, in the format the launcher found, with
 *   no overlay (the fork's Convert_v1_Hotplug_ContainerDisk_To_api_Disk leaves its backing store empty), so
 *   as a writable disk the guest can only read it;
 * - ephemeral: a qcow2 overlay over that PVC; emptyDisk: `<emptyDisks>/<vol>.qcow2`;
 * - hostDisk: the file in `<private>/vmi-disks/<vol>/`; cloud-init: the NoCloud / ConfigDrive ISO;
 * - configMap, secret, downwardAPI, serviceAccount, sysprep: their ISO images.
 */
import path from 'node:path';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import type { ConverterContext } from './context.ts';
import type { BackingStore, DiskSource, ImageFormat } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

export interface VolumeDisk {
  readonly type: 'file' | 'block';
  readonly source: DiskSource;
  readonly format: ImageFormat;
  readonly backingStore?: BackingStore;
  /** discard=unmap: images we create, and PVCs that are not preallocated. */
  readonly discard: boolean;
  /** A PVC or DataVolume, the only sources a LUN may use. */
  readonly persistent: boolean;
  /** The guest may not write it (a hotplugged image). */
  readonly readOnly?: boolean;
}

export interface VolumeSourceOptions {
  readonly vmi: VirtualMachineInstance;
  readonly ctx: ConverterContext;
  /** Position of the volume in spec.volumes (containerDisk images are numbered by it). */
  readonly index: number;
  readonly block: boolean;
  readonly hotplug: boolean;
}

function file(p: string, format: ImageFormat, discard: boolean): VolumeDisk {
  return { type: 'file', source: { file: p }, format, discard, persistent: false };
}

/** A hotpluggable containerDisk: an image the node mounts into the hotplug directory, not one of the Pod. */
export const isHotplugImage = (volume: Volume): boolean => volume.containerDisk?.hotpluggable === true;

/** A filesystem claim's image file: in its mount in the Pod, or where the node mounted it when hotplugged. */
export function claimImageFile(name: string, ctx: ConverterContext, hotplug: boolean): string {
  return hotplug
    ? path.join(ctx.layout.hotplugDiskDir, `${name}.img`)
    : path.join(ctx.layout.vmiDisksDir, name, 'disk.img');
}

function claimDisk(name: string, opts: VolumeSourceOptions): VolumeDisk {
  const { ctx, block, hotplug } = opts;
  const discard = !ctx.preallocatedVolumes.has(name);
  if (block) {
    const dev = hotplug ? path.join(ctx.layout.hotplugDiskDir, name) : path.join(ctx.layout.devDir, name);
    return { type: 'block', source: { dev }, format: 'raw', discard, persistent: true };
  }
  const format = ctx.claimDiskFormats.get(name) ?? 'raw';
  return { ...file(claimImageFile(name, ctx, hotplug), format, discard), persistent: true };
}

/** A hotplugged image: its file as the node mounted it, read-only, in the format the launcher found. */
function hotplugImage(name: string, ctx: ConverterContext): VolumeDisk {
  const format = ctx.claimDiskFormats.get(name) ?? 'raw';
  return { ...file(claimImageFile(name, ctx, true), format, false), readOnly: true };
}

function overlay(name: string, ctx: ConverterContext, backingStore: BackingStore): VolumeDisk {
  const p = path.join(ctx.layout.ephemeralDiskDir, 'disk-data', name, 'disk.qcow2');
  return { ...file(p, 'qcow2', true), backingStore };
}

function ephemeral(name: string, opts: VolumeSourceOptions): VolumeDisk {
  const pvc = claimDisk(name, { ...opts, hotplug: false });
  return overlay(name, opts.ctx, { type: pvc.type, format: pvc.format, source: pvc.source });
}

function cloudInitIso(vmi: VirtualMachineInstance, ctx: ConverterContext, iso: string): string {
  const { namespace = '', name = '' } = vmi.metadata;
  return path.join(ctx.layout.ephemeralDiskDir, 'cloud-init-data', namespace, name, iso);
}

function isoDisk(ctx: ConverterContext, dir: string, iso: string): VolumeDisk {
  return file(path.join(ctx.layout.privateDir, dir, iso), 'raw', false);
}

function configDisk(volume: Volume, ctx: ConverterContext): VolumeDisk | undefined {
  const name = volume.name;
  if (volume.configMap !== undefined) return isoDisk(ctx, 'config-map-disks', `${name}.iso`);
  if (volume.secret !== undefined) return isoDisk(ctx, 'secret-disks', `${name}.iso`);
  if (volume.downwardAPI !== undefined) return isoDisk(ctx, 'downwardapi-disks', `${name}.iso`);
  if (volume.serviceAccount !== undefined) return isoDisk(ctx, 'service-account-disk', 'service-account.iso');
  if (volume.sysprep !== undefined) return isoDisk(ctx, 'sysprep-disks', `${name}.iso`);
  return undefined;
}

function imageDisk(volume: Volume, opts: VolumeSourceOptions): VolumeDisk | undefined {
  const { ctx, vmi } = opts;
  const name = volume.name;
  if (volume.containerDisk !== undefined) {
    const image =
      ctx.containerDiskImages.get(name) ??
      path.join(ctx.layout.containerDiskDir(opts.index), 'disk', 'disk.img');
    const format = ctx.containerDiskFormats.get(name) ?? 'raw';
    return overlay(name, ctx, { type: 'file', format, source: { file: image } });
  }
  if (volume.cloudInitNoCloud !== undefined) return file(cloudInitIso(vmi, ctx, 'noCloud.iso'), 'raw', false);
  if (volume.cloudInitConfigDrive !== undefined) {
    return file(cloudInitIso(vmi, ctx, 'configdrive.iso'), 'raw', false);
  }
  if (volume.hostDisk !== undefined) {
    const p = path.join(ctx.layout.vmiDisksDir, name, path.posix.basename(volume.hostDisk.path));
    return file(p, 'raw', false);
  }
  if (volume.emptyDisk !== undefined)
    return file(path.join(ctx.layout.emptyDiskDir, `${name}.qcow2`), 'qcow2', true);
  if (volume.ephemeral !== undefined) return ephemeral(name, opts);
  return undefined;
}

/** The backing of a disk, or a ConversionError when the volume has no source this converter renders. */
export function volumeSource(volume: Volume, opts: VolumeSourceOptions): VolumeDisk {
  const field = `spec.volumes[${opts.index}]`;
  if (volume.persistentVolumeClaim !== undefined || volume.dataVolume !== undefined) {
    return claimDisk(volume.name, opts);
  }
  if (isHotplugImage(volume)) {
    if (opts.hotplug) return hotplugImage(volume.name, opts.ctx);
    throw new ConversionError(
      `${field}.containerDisk.hotpluggable`,
      'a hotpluggable containerDisk must be hotplugged',
    );
  }
  if (opts.hotplug) {
    throw new ConversionError(
      field,
      'only persistentVolumeClaim, dataVolume and hotpluggable containerDisk volumes can be hotplugged',
    );
  }
  const disk = imageDisk(volume, opts) ?? configDisk(volume, opts.ctx);
  if (disk !== undefined) return disk;
  if (volume.downwardMetrics !== undefined) {
    throw new ConversionError(
      `${field}.downwardMetrics`,
      'downwardMetrics disks are not supported',
      'unsupported',
    );
  }
  throw new ConversionError(field, `volume ${volume.name} has no source a disk can use`);
}
