/**
 * Who the launcher's libvirt runs as. libvirtd started by root always runs in system mode, whose paths cannot
 * be moved; so root runs it as Debian's QEMU user `libvirt-qemu` (group kvm) in session mode, as KubeVirt's
 * non-root launcher runs virtqemud. Anyone else runs it as themselves. Handing directories to that user
 * goes by descriptor (kubevirt pkg/safepath ChownAtNoFollow): whatever it planted there is never followed.
 */
import { readFileSync } from 'node:fs';
import { KvError } from '../../kernel/errors/errors.ts';
import { mkdirBeneath, SafeHandle, walkBeneath, withHandle } from '../../kernel/safepath/index.ts';

export interface Identity {
  readonly uid: number;
  readonly gid: number;
  /** 'self' when the daemons run as we do. */
  readonly name: string;
}

const DAEMON_USER = 'libvirt-qemu';

/** The colon-separated fields of the line for `name` in /etc/passwd or /etc/group text. Pure. */
export function colonRecord(text: string, name: string): string[] | undefined {
  return text
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))
    ?.split(':');
}

/** The passwd fields of `name`, parsed from passwd text. Pure. */
export function passwdEntry(passwd: string, name: string): Identity | undefined {
  const f = colonRecord(passwd, name);
  if (f === undefined) return undefined;
  return { uid: Number(f[2]), gid: Number(f[3]), name };
}

export function daemonIdentity(): Identity {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, name: 'self' };
  const id = passwdEntry(readFileSync('/etc/passwd', 'utf8'), DAEMON_USER);
  if (id === undefined) {
    throw new KvError('KV_ERR_CONFIG', `user ${DAEMON_USER} is missing (install libvirt-daemon-system)`);
  }
  return id;
}

/**
 * Hands the directory `root` and everything below it to the daemons' user; nothing to do when that is us.
 * `root` is trusted as a path (its parent is not the daemons'); below it no symlink is followed.
 */
export async function giveTree(root: string, id: Identity): Promise<void> {
  if (id.name === 'self') return;
  await withHandle(SafeHandle.root(root), (top) => walkBeneath(top, (h) => h.chown(id.uid, id.gid)));
}

/**
 * The directory `rel` below the trusted `root` (`root` itself for ''), made when missing, set to `mode` when
 * given and handed to the daemons' user; the directories made on the way stay ours. The caller closes it.
 */
export async function ownedDir(o: {
  root: string;
  rel: string;
  id: Identity;
  mode?: number;
}): Promise<SafeHandle> {
  const top = await SafeHandle.root(o.root);
  let dir = top;
  try {
    if (o.rel !== '') {
      dir = await mkdirBeneath(top, o.rel);
      await top.close();
    }
    if (o.mode !== undefined) await dir.chmod(o.mode);
    if (o.id.name !== 'self') await dir.chown(o.id.uid, o.id.gid);
    return dir;
  } catch (err) {
    await dir.close();
    await top.close();
    throw err;
  }
}
