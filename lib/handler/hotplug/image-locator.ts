/**
 * The IO side of image-mount.ts: finds, for an attachment Pod's image volume, the directory of the node where
 * the handler sees that image (kubevirt pkg/virt-handler/isolation: the container's process by the Pod's
 * cgroup, its mountinfo, then the node's). A process of the Pod is told by its /proc/<pid>/cgroup (the
 * kubelet's Pod cgroup, lib/network/setup/pod-cgroup.ts); the Pod's sandbox process has no such mount, the
 * attachment container's does. The cgroup is read again once the mountinfo is, so a PID that ended and came
 * back as another process's is not taken. The directory found was made by the container runtime: the caller
 * trusts it as a root and opens the tenant's names below it without following symlinks.
 */
import { readdir, readFile } from 'node:fs/promises';
import { KvError } from '../../kernel/errors/errors.ts';
import { podUidOfCgroup } from '../../network/setup/pod-cgroup.ts';
import { mountAt, parseMountInfo, visibleAt, type MountInfoEntry } from './image-mount.ts';

/** The node directory (in the handler's mount namespace) showing the image mounted at `mountPath` in the Pod. */
export type ImageLocator = (attachPodUid: string, mountPath: string) => Promise<string>;

const readOr = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The mount at mountPath in a process of the Pod, or undefined when no process of it has one. */
async function mountInPod(
  procRoot: string,
  podUid: string,
  mountPath: string,
): Promise<MountInfoEntry | undefined> {
  const pids = (await readdir(procRoot)).filter((e) => /^[1-9]\d*$/.test(e));
  for (const pid of pids) {
    const inPod = async (): Promise<boolean> => {
      const text = await readOr(`${procRoot}/${pid}/cgroup`);
      return text !== undefined && podUidOfCgroup(text) === podUid;
    };
    if (!(await inPod())) continue;
    const info = await readOr(`${procRoot}/${pid}/mountinfo`);
    const entry = info === undefined ? undefined : mountAt(parseMountInfo(info), mountPath);
    if (entry !== undefined && (await inPod())) return entry;
  }
  return undefined;
}

/** The locator over `procRoot` (the host's /proc: the handler runs in the host's PID namespace). */
export function procImageLocator(procRoot = '/proc'): ImageLocator {
  return async (attachPodUid, mountPath) => {
    const entry = await mountInPod(procRoot, attachPodUid, mountPath);
    if (entry === undefined)
      throw new KvError('KV_ERR_HOTPLUG', `no process of attachment pod ${attachPodUid} mounts ${mountPath}`);
    const own = parseMountInfo(await readFile(`${procRoot}/self/mountinfo`, 'utf8'));
    const at = visibleAt(entry, own);
    if (at === undefined)
      throw new KvError(
        'KV_ERR_HOTPLUG',
        `the image at ${mountPath} of attachment pod ${attachPodUid} (device ${entry.device}) is not visible ` +
          'in the handler: the container runtime mounts it where the handler does not see it',
      );
    return at;
  };
}
