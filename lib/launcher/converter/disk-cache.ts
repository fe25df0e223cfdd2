/**
 * Cache and I/O mode once a disk's backing is known (kubevirt SetDriverCacheMode and SetOptimalIOMode, with the
 * O_DIRECT probe done by the launcher and handed over in the context): no cache mode given → none where the
 * storage takes O_DIRECT, writethrough where it does not (tmpfs); cache none on such storage is an error.
 * With cache none, block devices and preallocated images get io=native.
 */
import type { ConverterContext } from './context.ts';
import type { Disk } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

export interface CacheOptions {
  readonly ctx: ConverterContext;
  /** The volume backing the disk. */
  readonly volume: string;
  /** spec.domain.devices.disks[i] */
  readonly field: string;
}

export function setCacheAndIo(disk: Disk, opts: CacheOptions): void {
  const { ctx, volume, field } = opts;
  const where = disk.source.file ?? disk.source.dev;
  if (where === undefined) return;
  const directIo = ctx.directIoByVolume.get(volume) ?? ctx.directIo;
  const asked = disk.driver.cache;
  if (asked === 'none' && !directIo) {
    throw new ConversionError(
      `${field}.cache`,
      `Unable to use 'none' cache mode, file system where ${where} is stored does not support direct I/O`,
    );
  }
  const cache = asked ?? (directIo ? 'none' : 'writethrough');
  disk.driver.cache = cache;
  const preallocated = disk.type === 'block' || ctx.preallocatedVolumes.has(volume);
  if (disk.driver.io === undefined && cache === 'none' && preallocated) disk.driver.io = 'native';
}
