/**
 * What has to exist before a domain starts (kubevirt manager.go preStartHook, reduced to what the converter
 * renders here): the VMI's private directory (console and VNC sockets, serial log) owned by the daemons'
 * user, the qcow2 overlays of ephemeral disks over their backing images (containerDisk, ephemeral PVC),
 * empty disks of the requested capacity, and the configuration ISOs (cloud-init, configMap, secret,
 * downwardAPI, serviceAccount). Images that already exist are kept (a restart keeps its overlay); the ISOs
 * are made anew each time, since what the Pod mounts may have changed. The manager calls this before every
 * start, which happens only while the domain is down, so no running guest ever sees its ISO replaced.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { quantityValue, type VirtualMachineInstance } from '../../api/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { ConverterContext, Disk, DomainSpec } from '../converter/index.ts';
import { configDiskImages, diskFiles, nodeSourceFs, writeIso } from '../configdisk/index.ts';
import { giveDirs, giveTree } from '../daemon/identity.ts';
import type { Identity } from '../daemon/process.ts';

const run = promisify(execFile);
export const QEMU_IMG = '/usr/bin/qemu-img';

/** A qemu-img command that makes a missing image, or undefined when the disk needs none. Pure. */
export function imageCommand(
  disk: Disk,
  emptyDiskBytes: (volume: string) => number | undefined,
): string[] | undefined {
  const file = disk.source.file;
  if (file === undefined) return undefined;
  const bs = disk.backingStore;
  const backing = bs?.source.file ?? bs?.source.dev;
  if (bs !== undefined && backing !== undefined) {
    return ['create', '-f', 'qcow2', '-F', bs.format, '-b', backing, file];
  }
  const bytes = emptyDiskBytes(disk.alias.name);
  if (bytes !== undefined) return ['create', '-f', disk.driver.type, file, String(bytes)];
  return undefined;
}

function emptyDiskSizes(vmi: VirtualMachineInstance): (volume: string) => number | undefined {
  const sizes = new Map<string, number>();
  (vmi.spec.volumes ?? []).forEach((v, i) => {
    if (v.emptyDisk === undefined) return;
    sizes.set(v.name, quantityValue(v.emptyDisk.capacity, `spec.volumes[${String(i)}].emptyDisk.capacity`));
  });
  return (volume) => sizes.get(volume);
}

async function mkdirOwned(path: string, id: Identity): Promise<void> {
  await mkdir(path, { recursive: true });
  await chmod(path, 0o755);
  await giveDirs([path], id);
}

export interface PrepareOptions {
  readonly vmi: VirtualMachineInstance;
  readonly domain: DomainSpec;
  readonly ctx: ConverterContext;
  readonly identity: Identity;
}

/** Writes every configuration ISO of the domain; a ConfigDiskError names the VMI field at fault. */
export async function writeConfigDisks(opts: PrepareOptions): Promise<void> {
  const images = configDiskImages({
    vmi: opts.vmi,
    ctx: opts.ctx,
    diskFiles: diskFiles(opts.domain.devices.disks),
    fs: nodeSourceFs,
  });
  for (const image of images) {
    await mkdirOwned(dirname(image.isoPath), opts.identity);
    await writeIso(image, opts.identity);
  }
}

export async function prepareDomain(opts: PrepareOptions): Promise<void> {
  const uid = opts.vmi.metadata.uid ?? '';
  await mkdirOwned(opts.ctx.layout.vmiPrivateDir(uid), opts.identity);
  await mkdirOwned(opts.ctx.layout.nvramDir, opts.identity);
  await writeConfigDisks(opts);
  const sizes = emptyDiskSizes(opts.vmi);
  for (const disk of opts.domain.devices.disks) {
    const file = disk.source.file;
    if (file === undefined || existsSync(file)) continue;
    const args = imageCommand(disk, sizes);
    if (args === undefined) continue;
    await mkdirOwned(dirname(file), opts.identity);
    try {
      await run(QEMU_IMG, args);
    } catch (err) {
      throw new KvError('KV_ERR_CONFIG', `cannot create disk image ${file} for disk ${disk.alias.name}`, {
        cause: err,
      });
    }
    await giveTree(dirname(file), opts.identity);
  }
}
