/**
 * Every configuration ISO a VMI's domain reads (kubevirt manager.go preStartHook: cloud-init, configMap,
 * secret, downwardAPI and serviceAccount disks), each at the path the converter gave its disk. Pure.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { ConverterContext, Disk } from '../converter/index.ts';
import { cloudInitImage } from './cloud-init.ts';
import { configVolumeImages } from './config-volumes.ts';
import type { IsoImage, SourceFs } from './image.ts';

export interface ConfigDiskInput {
  readonly vmi: VirtualMachineInstance;
  readonly ctx: Pick<ConverterContext, 'layout'>;
  /** Disk name → the image file the domain gives it. */
  readonly diskFiles: ReadonlyMap<string, string>;
  readonly fs: SourceFs;
}

/** Disk name → file, for the file-backed disks of a domain. */
export function diskFiles(disks: readonly Disk[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of disks) {
    if (d.source.file !== undefined) out.set(d.alias.name, d.source.file);
  }
  return out;
}

/** The images to write, or a ConfigDiskError naming the VMI field that prevents it. */
export function configDiskImages(i: ConfigDiskInput): IsoImage[] {
  const common = { vmi: i.vmi, layout: i.ctx.layout, diskFiles: i.diskFiles, fs: i.fs };
  const cloudInit = cloudInitImage(common);
  return [
    ...(cloudInit === undefined ? [] : [cloudInit]),
    ...configVolumeImages({ ...common, root: i.ctx.layout.root }),
  ];
}
