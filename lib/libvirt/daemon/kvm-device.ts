/**
 * /dev/kvm's permissions. With /dev/kvm root:root 0600 a libvirt that runs as libvirt-qemu (identity.ts)
 * cannot use KVM and re-probes QEMU on every define (about 51 s each here); group kvm and mode 0660 make a
 * define take milliseconds. Only root may change it, and only then do we (and log it).
 */
import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import type { Logger } from '../../kernel/log/log.ts';
import { colonRecord } from './identity.ts';

/** The gid of group `name`, parsed from /etc/group text. Pure. */
export function groupId(group: string, name: string): number | undefined {
  const f = colonRecord(group, name);
  return f === undefined ? undefined : Number(f[2]);
}

/** The mode /dev/kvm needs (group read-write), or undefined when it already has it with group kvmGid. Pure. */
export function kvmModeFix(st: { gid: number; mode: number }, kvmGid: number): number | undefined {
  if (st.gid === kvmGid && (st.mode & 0o060) === 0o060) return undefined;
  return (st.mode & 0o7777) | 0o060;
}

/** Makes the device group kvm and group read-write when we are root and it is not already. */
export function ensureKvmDeviceAccess(log: Logger, device = '/dev/kvm'): void {
  if (process.getuid?.() !== 0) return;
  let st;
  try {
    st = statSync(device);
  } catch {
    return;
  }
  const gid = groupId(readFileSync('/etc/group', 'utf8'), 'kvm');
  if (gid === undefined) return;
  const mode = kvmModeFix(st, gid);
  if (mode === undefined) return;
  chownSync(device, st.uid, gid);
  chmodSync(device, mode);
  log.info('made /dev/kvm group kvm and group read-write (we are root): libvirt re-probes QEMU otherwise', {
    device,
    mode: mode.toString(8),
  });
}
