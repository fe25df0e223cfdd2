/**
 * The IO side of hotplug (plan.ts decides): for one VMI, finds each wanted claim's PersistentVolume, bind-mounts
 * its disk onto a file in the launcher Pod's `hotplug-disks` emptyDir (the kubelet mounts that emptyDir with
 * HostToContainer propagation, so the launcher sees the mount), hands the file to QEMU's user, and takes mounts
 * off once a volume is gone from the spec and from the domain. What is mounted is read back from
 * /proc/self/mountinfo, so a restarted handler picks up where it was.
 */
import { execFile } from 'node:child_process';
import { chown, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { VirtualMachineInstance } from '../../api/index.ts';
import type { PersistentVolume } from '../../api/core/pv.ts';
import type { PersistentVolumeClaim } from '../../api/core/pvc.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import { readMountPoints } from '../../kernel/host/mounts.ts';
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES } from '../../kernel/kube/index.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { HOTPLUG_DISKS_VOLUME, podVolumeOnNode } from '../../rpc/index.ts';
import {
  claimSourceOnNode,
  hotplugTarget,
  mountPlan,
  volumeOfTarget,
  wantedHotplug,
  type MountStep,
  type WantedHotplug,
} from './plan.ts';

const run = promisify(execFile);
/** QEMU's user and group in the launcher image. */
const QEMU_ID = 107;

export interface HotplugMounterOptions {
  /** Speaks core/v1 (claims and persistent volumes). */
  readonly client: KubeClient;
  readonly kubeletPodsDir: string;
  readonly log: Logger;
}

export class HotplugMounter {
  constructor(private readonly o: HotplugMounterOptions) {}

  /** The launcher Pod's hotplug directory on this node. */
  dirOf(launcherPodUid: string): string {
    return podVolumeOnNode(this.o.kubeletPodsDir, launcherPodUid, HOTPLUG_DISKS_VOLUME);
  }

  /** Hotplug targets mounted now in that directory. */
  async mounted(launcherPodUid: string): Promise<string[]> {
    const dir = this.dirOf(launcherPodUid);
    return (await readMountPoints()).filter((p) => path.dirname(p) === dir);
  }

  /**
   * Brings the mounts of one VMI in line; resolves the volumes mounted afterwards. A claim whose data cannot be
   * found yet is left out (and logged); the VMI is looked at again later.
   */
  async reconcile(
    vmi: VirtualMachineInstance,
    launcherPodUid: string,
    inDomain: ReadonlySet<string>,
  ): Promise<ReadonlySet<string>> {
    const dir = this.dirOf(launcherPodUid);
    const wanted: MountStep[] = [];
    for (const w of wantedHotplug(vmi)) {
      const source = await this.sourceOf(vmi, w);
      if (source !== undefined)
        wanted.push({
          volume: w.volume,
          source,
          target: hotplugTarget(dir, w.volume, w.block),
          block: w.block,
        });
    }
    const before = existsSync(dir) ? await this.mounted(launcherPodUid) : [];
    const plan = mountPlan(wanted, before, inDomain);
    if (plan.mount.length === 0 && plan.unmount.length === 0) return new Set(before.map(volumeOfTarget));
    for (const step of plan.mount) await this.mount(vmi, step);
    for (const target of plan.unmount) await this.unmount(vmi, target);
    return new Set((await this.mounted(launcherPodUid)).map(volumeOfTarget));
  }

  private async sourceOf(vmi: VirtualMachineInstance, w: WantedHotplug): Promise<string | undefined> {
    const namespace = vmi.metadata.namespace ?? '';
    const fields = { name: vmi.metadata.name, volume: w.volume };
    try {
      const pvc = await this.o.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, w.claimName, {
        namespace,
      });
      const pvName = pvc.spec?.volumeName ?? '';
      if (pvName === '') {
        this.o.log.info('hotplug claim not bound yet', fields);
        return undefined;
      }
      const pv = await this.o.client.get<PersistentVolume>(PERSISTENT_VOLUMES, pvName);
      const found = claimSourceOnNode(w, pv, this.o.kubeletPodsDir);
      if ('problem' in found) {
        this.o.log.warning('hotplug volume not mountable', { ...fields, reason: found.problem });
        return undefined;
      }
      if (!existsSync(found.path)) {
        this.o.log.info('hotplug disk not on the node yet', { ...fields, path: found.path });
        return undefined;
      }
      return found.path;
    } catch (err) {
      this.o.log.warning('hotplug claim lookup failed', { ...fields, reason: errorMessage(err) });
      return undefined;
    }
  }

  private async mount(vmi: VirtualMachineInstance, step: MountStep): Promise<void> {
    await writeFile(step.target, '', { flag: 'a' });
    try {
      await run('mount', ['--bind', step.source, step.target]);
      await chown(step.target, QEMU_ID, QEMU_ID);
    } catch (err) {
      await rm(step.target, { force: true }).catch(() => undefined);
      throw new KvError('KV_ERR_HOTPLUG', `mounting hotplug volume ${step.volume}: ${errorMessage(err)}`);
    }
    this.o.log.info('hotplug volume mounted', {
      name: vmi.metadata.name,
      volume: step.volume,
      target: step.target,
    });
  }

  private async unmount(vmi: VirtualMachineInstance, target: string): Promise<void> {
    try {
      await run('umount', [target]);
    } catch (err) {
      throw new KvError(
        'KV_ERR_HOTPLUG',
        `unmounting hotplug volume ${volumeOfTarget(target)}: ${errorMessage(err)}`,
      );
    }
    await rm(target, { force: true });
    this.o.log.info('hotplug volume unmounted', { name: vmi.metadata.name, volume: volumeOfTarget(target) });
  }
}
