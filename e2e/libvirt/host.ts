/**
 * Host facts the private libvirt daemon needs: which user it runs as, and /dev/kvm's permissions.
 *
 * Identity: libvirtd started by root always runs in privileged ("system") mode, whose paths (/run/libvirt,
 * /var/lib/libvirt, /etc/libvirt/qemu.conf) cannot be moved by a config file. To get a daemon whose every
 * directory lives under a temp dir, root starts it as the unprivileged `libvirt-qemu` user (Debian's
 * QEMU user, group kvm) in session mode, the way KubeVirt's non-root virt-launcher runs virtqemud;
 * a non-root caller runs it as itself.
 */
import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import type { Logger } from '../../lib/kernel/log/log.ts';

export interface Identity {
  uid: number;
  gid: number;
  name: string;
}

export const DAEMON_USER = 'libvirt-qemu';

function lookup(file: string, name: string): string[] | undefined {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line?.split(':');
}

/** The user the daemons run as: libvirt-qemu when we are root, ourselves otherwise. */
export function daemonIdentity(): Identity {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, name: 'self' };
  const f = lookup('/etc/passwd', DAEMON_USER);
  if (f === undefined) {
    throw new KvError('KV_ERR_CONFIG', `user ${DAEMON_USER} is missing (install libvirt-daemon-system)`);
  }
  return { uid: Number(f[2]), gid: Number(f[3]), name: DAEMON_USER };
}

/**
 * With /dev/kvm root:root 0600 libvirt re-probes QEMU on every define (about 51 s each here); group kvm and
 * mode 0660 make a define take milliseconds. Only root may change it, and only then do we.
 */
export function ensureKvmDeviceAccess(log: Logger, device = '/dev/kvm'): void {
  if (process.getuid?.() !== 0) return;
  let st;
  try {
    st = statSync(device);
  } catch {
    return;
  }
  const kvm = lookup('/etc/group', 'kvm');
  if (kvm === undefined) return;
  const gid = Number(kvm[2]);
  if (st.gid === gid && (st.mode & 0o060) === 0o060) return;
  chownSync(device, st.uid, gid);
  chmodSync(device, (st.mode & 0o7777) | 0o060);
  log.info('made /dev/kvm group kvm and group read-write (we are root): libvirt re-probes QEMU otherwise', {
    device,
    mode: ((st.mode & 0o7777) | 0o060).toString(8),
  });
}
