/**
 * A launcher Pod's network namespace as an open descriptor (what KubeVirt's handler reaches through the
 * launcher's PID, pkg/virt-handler/isolation): the first process whose cgroup the kubelet made for the Pod's
 * uid (pod-cgroup.ts), its /proc/<pid>/ns/net opened, then checked: a namespace (on nsfs, like our own), not
 * our own namespace, and the process still the Pod's once it is open, so a PID that ended and came back
 * as another process's is never used. Every command then acts on the descriptor (netns-exec.ts), never on a
 * path looked up again.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { KvError } from '../../kernel/errors/errors.ts';
import { podUidOfCgroup } from './pod-cgroup.ts';

export interface OpenNetns {
  readonly fd: number;
  /** What it is, for messages: `pod <uid> (pid <pid>)`. */
  readonly name: string;
  close(): void;
}

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * Refuses a descriptor that is not a network namespace other than ours: every namespace file lives on the one
 * nsfs device, so a regular file, a socket or a directory put in its place has another device.
 */
export function checkForeignNamespace(fd: number, name: string): void {
  const got = fstatSync(fd);
  const own = statSync('/proc/self/ns/net');
  if (got.dev !== own.dev) throw new KvError('KV_ERR_INVALID', `${name} is not a network namespace`);
  if (got.ino === own.ino)
    throw new KvError('KV_ERR_INVALID', `${name} is this process's own network namespace`);
}

/** Opens the network namespace of the Pod with this uid; KV_ERR_LAUNCHER when no process of it runs here. */
export function openPodNetns(podUid: string, procRoot = '/proc'): OpenNetns {
  const pids = readdirSync(procRoot)
    .filter((e) => /^[1-9]\d*$/.test(e))
    .sort((a, b) => Number(a) - Number(b));
  for (const pid of pids) {
    const inPod = (): boolean => {
      const text = readOr(`${procRoot}/${pid}/cgroup`);
      return text !== undefined && podUidOfCgroup(text) === podUid;
    };
    if (!inPod()) continue;
    let fd: number;
    try {
      fd = openSync(`${procRoot}/${pid}/ns/net`, 'r');
    } catch {
      continue;
    }
    const name = `pod ${podUid} (pid ${pid})`;
    try {
      if (!inPod()) throw new KvError('KV_ERR_LAUNCHER', `${name} ended while its namespace was opened`);
      checkForeignNamespace(fd, name);
    } catch (err) {
      closeSync(fd);
      if (err instanceof KvError && err.code === 'KV_ERR_LAUNCHER') continue;
      throw err;
    }
    return {
      fd,
      name,
      close: (): void => {
        closeSync(fd);
      },
    };
  }
  throw new KvError('KV_ERR_LAUNCHER', `no process of pod ${podUid} runs on this node`);
}
