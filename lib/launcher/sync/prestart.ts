/**
 * What has to exist before a domain starts (kubevirt manager.go preStartHook, reduced to what the converter
 * renders here): the VMI's private directory (console and VNC sockets, serial log) owned by the daemons'
 * user, the qcow2 image of a filesystem claim that has none (claim-image.ts), the qcow2 overlays of ephemeral
 * disks over their backing images (containerDisk, ephemeral PVC), empty disks of the requested capacity, and
 * the configuration ISOs (cloud-init, configMap, secret, downwardAPI, serviceAccount). Images that already
 * exist are kept (a restart keeps its overlay); the ISOs are made anew each time, since what the Pod mounts
 * may have changed. The manager calls this before every start, which happens only while the domain is down,
 * so no running guest ever sees its ISO replaced. Those directories are the daemons' user's: they are made
 * and handed over by descriptor, never through a symlink, and qemu-img runs as that user, so it writes
 * nothing the user could not write itself (a claim's directory is another party's: its image is copied in by
 * descriptor). Last it waits for the virtiofsd sockets (virtiofs-sockets.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { hasPersistentEfi, quantityValue, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { withHandle, type SafeHandle } from '../../kernel/safepath/index.ts';
import type { PodLayout } from '../../rpc/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { claimImages, type ConverterContext, type Disk, type DomainSpec } from '../converter/index.ts';
import { configDiskImages, diskFiles, nodeSourceFs, writeIso } from '../configdisk/index.ts';
import { ownedDir, type Identity } from '../../libvirt/daemon/identity.ts';
import { createClaimImage } from './claim-image.ts';
import { QEMU_IMG } from './image-format.ts';
import { waitForVirtiofsSockets } from './virtiofs-sockets.ts';

const run = promisify(execFile);

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

/**
 * The launcher's directories whose own paths the daemons' user cannot change: their parents are root's (or
 * the image's) even where the directories themselves are the daemons' user's.
 */
type Roots = Pick<PodLayout, 'privateDir' | 'ephemeralDiskDir' | 'libvirtRuntimeDir' | 'hotplugDiskDir'>;

/** `dir` as the innermost trusted root holding it and the path below that root. Pure. */
export function beneathRoot(layout: Roots, dir: string): { root: string; rel: string } {
  let best: { root: string; rel: string } | undefined;
  for (const root of [
    layout.privateDir,
    layout.ephemeralDiskDir,
    layout.libvirtRuntimeDir,
    layout.hotplugDiskDir,
  ]) {
    const rel = path.relative(root, dir);
    if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) continue;
    if (best === undefined || root.length > best.root.length) best = { root, rel };
  }
  if (best === undefined)
    throw new KvError('KV_ERR_CONFIG', `${dir} is not inside one of the launcher's directories`);
  return best;
}

/** `dir` made (mkdir -p by descriptor, never through a symlink), 0755 and the daemons' user's. */
function ownedIn(layout: Roots, dir: string, id: Identity): Promise<SafeHandle> {
  return ownedDir({ ...beneathRoot(layout, dir), id, mode: 0o755 });
}

export interface PrepareOptions {
  readonly vmi: VirtualMachineInstance;
  readonly domain: DomainSpec;
  readonly ctx: ConverterContext;
  readonly identity: Identity;
  readonly log?: Logger;
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
    await withHandle(ownedIn(opts.ctx.layout, path.dirname(image.isoPath), opts.identity), (dir) =>
      writeIso(image, dir, opts.identity),
    );
  }
}

/** qemu-img as the daemons' user: what it writes is theirs, and it can reach nothing they could not. */
function runQemuImg(args: readonly string[], id: Identity): Promise<unknown> {
  return run(QEMU_IMG, [...args], id.name === 'self' ? {} : { uid: id.uid, gid: id.gid });
}

export async function prepareDomain(opts: PrepareOptions): Promise<void> {
  const uid = opts.vmi.metadata.uid ?? '';
  const layout = opts.ctx.layout;
  // A persistent EFI's variable store sits on the VM's backend-storage claim (a subPath mount the kubelet made,
  // the claim's owner's): used as it is.
  const dirs = [layout.vmiPrivateDir(uid), ...(hasPersistentEfi(opts.vmi.spec) ? [] : [layout.nvramDir])];
  for (const dir of dirs) await (await ownedIn(layout, dir, opts.identity)).close();
  await writeConfigDisks(opts);
  for (const image of claimImages(opts.vmi, opts.ctx)) {
    if (!image.creatable || existsSync(image.file)) continue;
    await createClaimImage({ ...opts, image, layout });
  }
  const sizes = emptyDiskSizes(opts.vmi);
  for (const disk of opts.domain.devices.disks) {
    const file = disk.source.file;
    if (file === undefined || existsSync(file)) continue;
    const args = imageCommand(disk, sizes);
    if (args === undefined) continue;
    await (await ownedIn(layout, path.dirname(file), opts.identity)).close();
    try {
      await runQemuImg(args, opts.identity);
    } catch (err) {
      throw new KvError('KV_ERR_CONFIG', `cannot create disk image ${file} for disk ${disk.alias.name}`, {
        cause: err,
      });
    }
  }
  await waitForVirtiofsSockets(opts.domain);
}
