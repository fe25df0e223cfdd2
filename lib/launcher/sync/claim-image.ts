/**
 * The image the launcher makes on a filesystem claim that has none: a qcow2 `disk.img` (Deckhouse's fork, its
 * patch 021 on kubevirt pkg/host-disk, where KubeVirt makes a sparse raw file) of the size KubeVirt's
 * ReplacePVCByHostDisk and handleRequestedSizeAndCreate* give it: the claim's request when below its
 * capacity, else the capacity, 1 MiB-aligned down; shrunk to the space the filesystem has left (less a
 * reserve) when that is within the tolerated shortfall, refused otherwise. The claim's directory is another
 * party's: qemu-img writes the image in a directory of our own, and it is copied into a file made there by
 * descriptor (never an existing entry, never through a symlink), then handed to the daemons' user.
 */
import { execFile } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { mkdtemp, readFile, rm, statfs, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { quantityValue, type ResourceList, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { openBeneath, withHandle, type SafeHandle } from '../../kernel/safepath/index.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import type { PodLayout } from '../../rpc/index.ts';
import type { ClaimImage } from '../converter/index.ts';
import { QEMU_IMG } from './image-format.ts';

const run = promisify(execFile);
const MIB = 1024 * 1024;
/** KubeVirt's defaults: virt-config DefaultLessPVCSpaceToleration and DefaultMinimumReservePVCBytes. */
const PVC_SPACE_TOLERATION_PERCENT = 10;
const PVC_RESERVE_BYTES = 131072;
const IMAGE_MODE = 0o660;

type Sized = { readonly bytes: number } | { readonly problem: string };

function storageBytes(list: ResourceList | undefined): number | undefined {
  const q = list?.['storage'];
  return q === undefined ? undefined : quantityValue(q);
}

/** The size of the image on claim `volume` from its volume status (capacity and requests). Pure. */
export function claimImageBytes(vmi: VirtualMachineInstance, volume: string): Sized {
  const info = vmi.status?.volumeStatus?.find((s) => s.name === volume)?.persistentVolumeClaimInfo;
  const cap = storageBytes(info?.capacity);
  const req = storageBytes(info?.requests);
  // The request when it is below the capacity (or the only one known), else the capacity.
  const size = req !== undefined && (cap === undefined || cap > req) ? req : cap;
  if (size === undefined)
    return { problem: 'its claim reports neither a storage capacity nor a storage request' };
  const aligned = size - (size % MIB);
  if (aligned === 0) return { problem: `its size of ${size} bytes is below 1 MiB` };
  return { bytes: aligned };
}

/**
 * `requested` bytes when `available` holds them, else `available` (1 MiB-aligned down) when it lacks no more
 * than `tolerationPercent` of them. Pure.
 */
export function fitToSpace(requested: number, available: number, tolerationPercent: number): Sized {
  if (requested <= available) return { bytes: requested };
  const tolerated = Math.floor((requested * (100 - tolerationPercent)) / 100);
  const bytes = available - (available % MIB);
  if (tolerated > available || bytes === 0)
    return {
      problem:
        `not enough space: ${requested} bytes asked, ${available} bytes available, ` +
        `more than ${tolerationPercent}% short`,
    };
  return { bytes };
}

/** A fresh qcow2 image of `bytes` virtual size, made by qemu-img in a directory only we can write. */
async function newQcow2(bytes: number): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kv-claim-image-'));
  try {
    const file = path.join(dir, 'disk.qcow2');
    await run(QEMU_IMG, ['create', '-q', '-f', 'qcow2', file, String(bytes)]);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function writeNew(dir: SafeHandle, name: string, content: Buffer, id: Identity): Promise<void> {
  const target = await dir.createFile(name, IMAGE_MODE);
  try {
    const fh = await target.reopen(fsConstants.O_WRONLY);
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
    if (id.name !== 'self') await target.chown(id.uid, id.gid);
    await target.chmod(IMAGE_MODE);
  } catch (err) {
    await unlink(`${dir.procPath}/${name}`).catch(() => undefined);
    throw err;
  } finally {
    await target.close();
  }
}

export interface CreateClaimImageOptions {
  readonly image: ClaimImage;
  readonly vmi: VirtualMachineInstance;
  readonly layout: Pick<PodLayout, 'vmiDisksDir'>;
  readonly identity: Identity;
  readonly log?: Logger;
}

/** Makes the claim's missing image as qcow2; a KV_ERR_CONFIG error names the volume when it cannot. */
export async function createClaimImage(o: CreateClaimImageOptions): Promise<void> {
  const { image } = o;
  const where = `volume ${image.volume} (${image.field})`;
  const rel = path.relative(o.layout.vmiDisksDir, path.dirname(image.file));
  const wanted = claimImageBytes(o.vmi, image.volume);
  if ('problem' in wanted)
    throw new KvError('KV_ERR_CONFIG', `${where}: cannot size its image: ${wanted.problem}`);
  await withHandle(openBeneath(o.layout.vmiDisksDir, rel, ['directory']), async (dir) => {
    const fs = await statfs(dir.procPath);
    const available = Math.max(0, fs.bavail * fs.bsize - PVC_RESERVE_BYTES);
    const fit = fitToSpace(wanted.bytes, available, PVC_SPACE_TOLERATION_PERCENT);
    if ('problem' in fit)
      throw new KvError('KV_ERR_CONFIG', `${where}: cannot make its image: ${fit.problem}`);
    if (fit.bytes < wanted.bytes) {
      o.log?.warning('claim smaller than asked, its image gets the space there is', {
        volume: image.volume,
        asked: wanted.bytes,
        bytes: fit.bytes,
      });
    }
    try {
      await writeNew(dir, path.basename(image.file), await newQcow2(fit.bytes), o.identity);
    } catch (err) {
      throw new KvError('KV_ERR_CONFIG', `${where}: cannot make its image ${image.file}`, { cause: err });
    }
    o.log?.info('claim image made', { volume: image.volume, format: 'qcow2', bytes: fit.bytes });
  });
}
