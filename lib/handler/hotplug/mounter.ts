/**
 * The IO side of hotplug (kubevirt pkg/virt-handler/hotplug-disk/mount.go Mount/Unmount; plan.ts decides,
 * lookup.ts vouches): for one VMI, bind-mounts each wanted claim's disk onto an entry of the launcher Pod's
 * `hotplug-disks` emptyDir (the kubelet mounts that emptyDir with HostToContainer propagation, so the launcher
 * sees the mount), hands the disk to QEMU's user, and takes mounts off once a volume is gone from the spec and
 * from the domain. Every path below a trusted root (the kubelet's pods dir, resolved once at start, or a
 * PersistentVolume's own path) is opened with lib/kernel/safepath, never following a symlink; the source must
 * be a regular file (a device for a block claim), the target is created exclusively or reused only as a regular
 * file, and mounts, owners and unmounts act by descriptor. What is mounted is read from the directory itself
 * (an entry on another mount than its directory is a mount point), so a restarted handler picks up where it was
 * and no path is compared as a string. A hotplugged containerDisk's disk is the image's file on the node
 * (image-locator.ts finds the image, lib/rpc/container-disk-file.ts the file in it), bind-mounted read-only and
 * never handed to QEMU's user: the image is the tenant's and stays as it is.
 */
import { readdir, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import {
  bindMount,
  isMountPoint,
  openBeneath,
  remountReadOnly,
  unmountLazy,
  UnsafePathError,
  withHandle,
  type SafeHandle,
} from '../../kernel/safepath/index.ts';
import { containerDiskFile, HOTPLUG_DISKS_VOLUME } from '../../rpc/index.ts';
import { procImageLocator, type ImageLocator } from './image-locator.ts';
import { HotplugLookup, type ObjectReader } from './lookup.ts';
import {
  isUid,
  mountPlan,
  refusal,
  targetName,
  volumeOfEntry,
  wantedHotplug,
  type AttachPodRef,
  type HotplugOutcome,
  type ImageOnNode,
  type SourceOnNode,
  type WantedHotplug,
} from './plan.ts';

/** QEMU's user and group in the launcher image. */
const QEMU_ID = 107;
const TARGET_MODE = 0o660;
/** Mounts stacked on one entry (by an older handler) that an unmount takes off at most. */
const MAX_STACKED = 16;

export interface HotplugMounterOptions {
  /** Speaks core/v1 (Pods, claims and persistent volumes). */
  readonly client: ObjectReader;
  readonly node: string;
  /** The kubelet's pods dir; resolved once by `start` (symlinks in it are the node admin's). */
  readonly kubeletPodsDir: string;
  readonly log: Logger;
  /** Finds a hotplugged image on the node (default: through /proc). */
  readonly imageLocator?: ImageLocator;
}

/** Opens a claim's disk: below its trusted root without following symlinks, or a trusted path as a whole. */
async function openSource(s: SourceOnNode): Promise<SafeHandle> {
  if (s.rel.length > 0) return openBeneath(s.root, s.rel, [s.kind]);
  let real: string;
  try {
    real = await realpath(s.root);
  } catch (err) {
    throw new UnsafePathError('not-found', s.root, `${s.root} does not exist`, { cause: err });
  }
  return openBeneath(path.dirname(real), [path.basename(real)], [s.kind]);
}

/** Opens a hotplugged image's disk file: the image found on the node, the file below it without following symlinks. */
async function openImage(s: ImageOnNode, locate: ImageLocator): Promise<SafeHandle> {
  let root: string;
  try {
    root = await locate(s.attachPodUid, s.mountPath);
  } catch (err) {
    throw new UnsafePathError('not-found', s.mountPath, errorMessage(err), { cause: err });
  }
  const fail = (message: string, cause?: unknown): Error =>
    new UnsafePathError('wrong-kind', s.mountPath, `image at ${s.mountPath}: ${message}`, { cause });
  const parts = await containerDiskFile(root, s.path, fail);
  return openBeneath(root, parts, ['file']);
}

export class HotplugMounter {
  constructor(private readonly o: HotplugMounterOptions) {}

  /** A mounter over the kubelet's pods dir as it resolves now (the dir as given when it does not exist yet). */
  static async start(o: HotplugMounterOptions): Promise<HotplugMounter> {
    const resolved = await realpath(o.kubeletPodsDir).catch((err: unknown) => {
      o.log.warning('kubelet pods dir not resolved', { path: o.kubeletPodsDir, reason: errorMessage(err) });
      return o.kubeletPodsDir;
    });
    return new HotplugMounter({ ...o, kubeletPodsDir: resolved });
  }

  /** The launcher Pod's hotplug directory, or undefined while it does not exist. */
  private async openDir(launcherPodUid: string): Promise<SafeHandle | undefined> {
    if (!isUid(launcherPodUid))
      throw new KvError('KV_ERR_HOTPLUG', `launcher pod uid ${JSON.stringify(launcherPodUid)} is not a UID`);
    const rel = [launcherPodUid, 'volumes', 'kubernetes.io~empty-dir', HOTPLUG_DISKS_VOLUME];
    try {
      return await openBeneath(this.o.kubeletPodsDir, rel, ['directory']);
    } catch (err) {
      if (err instanceof UnsafePathError && err.reason === 'not-found') return undefined;
      throw err;
    }
  }

  /** The volumes mounted in the hotplug directory: volume → its entry. */
  private async mountedIn(dir: SafeHandle): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const entry of (await readdir(dir.procPath)).sort()) {
      const volume = volumeOfEntry(entry);
      if (volume === undefined) continue;
      const h = await dir.open(entry, ['file', 'block']).catch((err: unknown) => {
        if (err instanceof UnsafePathError) return undefined;
        throw err;
      });
      if (h === undefined) continue;
      await withHandle(h, async () => {
        if (await isMountPoint(dir, h)) out.set(volume, entry);
      });
    }
    return out;
  }

  /**
   * Brings the mounts of one VMI in line; resolves the volumes mounted afterwards and the refused ones with why.
   * A volume whose lookup fails for another reason than a refusal is left for the next pass (and logged).
   */
  async reconcile(
    vmi: VirtualMachineInstance,
    launcherPodUid: string,
    inDomain: ReadonlySet<string>,
    from?: AttachPodRef,
  ): Promise<HotplugOutcome> {
    const { wanted, invalid } = wantedHotplug(vmi, from);
    const refused = new Map(invalid);
    const dir = await this.openDir(launcherPodUid);
    if (dir === undefined) return { mounted: new Set(), refused };
    return withHandle(dir, async () => {
      const before = await this.mountedIn(dir);
      const plan = mountPlan(wanted, before, inDomain);
      if (plan.mount.length === 0 && plan.unmount.length === 0)
        return { mounted: new Set(before.keys()), refused };
      const lookup = new HotplugLookup({ ...this.o, vmi, launcherPodUid });
      for (const w of plan.mount) {
        const why = await this.tryMount({ vmi, w, dir, lookup });
        if (why === undefined) continue;
        refused.set(w.volume, refusal(w.volume, w.block, why));
        this.o.log.warning('hotplug volume refused', {
          name: vmi.metadata.name,
          volume: w.volume,
          reason: why,
        });
      }
      for (const entry of plan.unmount) await this.unmount(vmi, dir, entry);
      return { mounted: new Set((await this.mountedIn(dir)).keys()), refused };
    });
  }

  /**
   * Mounts the VMI's attached volumes into a migration target's launcher Pod from the target's own attachment Pod
   * (kubevirt MountFromPod), before the domain arrives there; a refused volume fails the preparation.
   */
  async mountFromPod(vmi: VirtualMachineInstance, launcherPodUid: string, from: AttachPodRef): Promise<void> {
    const { refused } = await this.reconcile(vmi, launcherPodUid, new Set(), from);
    if (refused.size > 0)
      throw new KvError(
        'KV_ERR_HOTPLUG',
        `failed to mount hotplug volumes: ${[...refused.values()].join('; ')}`,
      );
  }

  /**
   * Takes every hotplug mount off a launcher Pod whose guest is gone (stopped, or migrated away), so the kubelet
   * can remove the Pod's directory (kubevirt's UnmountAll on cleanup).
   */
  async release(vmi: VirtualMachineInstance, launcherPodUid: string): Promise<HotplugOutcome> {
    const none = { ...vmi, status: { ...vmi.status, volumeStatus: [] } };
    return this.reconcile(none, launcherPodUid, new Set());
  }

  /** Mounts one volume; resolves why it was refused, or undefined (mounted, or left for the next pass). */
  private async tryMount(s: {
    vmi: VirtualMachineInstance;
    w: WantedHotplug;
    dir: SafeHandle;
    lookup: HotplugLookup;
  }): Promise<string | undefined> {
    const fields = { name: s.vmi.metadata.name, volume: s.w.volume };
    let found: Awaited<ReturnType<HotplugLookup['source']>>;
    try {
      found = await s.lookup.source(s.w);
    } catch (err) {
      this.o.log.warning('hotplug claim lookup failed', { ...fields, reason: errorMessage(err) });
      return undefined;
    }
    if ('problem' in found) return found.problem;
    try {
      await this.mount(s.dir, s.w, found);
    } catch (err) {
      if (err instanceof UnsafePathError) return err.message;
      throw new KvError('KV_ERR_HOTPLUG', refusal(s.w.volume, s.w.block, errorMessage(err)), { cause: err });
    }
    this.o.log.info('hotplug volume mounted', fields);
    return undefined;
  }

  /**
   * Opens the source and the target and bind-mounts one onto the other, all by descriptor: a claim's disk is
   * handed to QEMU first, an image's is mounted read-only (the remount acts on the new mount, reopened).
   */
  private async mount(dir: SafeHandle, w: WantedHotplug, from: SourceOnNode | ImageOnNode): Promise<void> {
    const image = from.kind === 'image';
    const opened = image ? openImage(from, this.o.imageLocator ?? procImageLocator()) : openSource(from);
    await withHandle(opened, async (source) => {
      const name = targetName(w.volume, w.block);
      const target = await dir.createFile(name, TARGET_MODE, { reuse: true });
      await withHandle(target, async () => {
        if (await isMountPoint(dir, target)) return;
        if (!image) await source.chown(QEMU_ID, QEMU_ID);
        await bindMount(source, target);
        if (image) await this.readOnly(dir, name);
      });
    });
  }

  /** Makes the mount on the entry read-only; takes it off again when that fails (never left writable). */
  private async readOnly(dir: SafeHandle, name: string): Promise<void> {
    await withHandle(dir.open(name, ['file']), async (mounted) => {
      try {
        await remountReadOnly(mounted);
      } catch (err) {
        await unmountLazy(mounted);
        throw err;
      }
    });
  }

  /** Takes every mount off the entry (checked to be a mount point each time), then removes it. */
  private async unmount(vmi: VirtualMachineInstance, dir: SafeHandle, entry: string): Promise<void> {
    const volume = volumeOfEntry(entry) ?? entry;
    try {
      for (let i = 0; ; i++) {
        const mounted = await withHandle(dir.open(entry, ['file', 'block']), async (h) => {
          if (!(await isMountPoint(dir, h))) return false;
          await unmountLazy(h);
          return true;
        });
        if (!mounted) break;
        if (i >= MAX_STACKED) throw new KvError('KV_ERR_HOTPLUG', `more than ${MAX_STACKED} mounts stacked`);
      }
      await unlink(`${dir.procPath}/${entry}`);
    } catch (err) {
      throw new KvError('KV_ERR_HOTPLUG', `unmounting hotplug volume ${volume}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    this.o.log.info('hotplug volume unmounted', { name: vmi.metadata.name, volume });
  }
}
