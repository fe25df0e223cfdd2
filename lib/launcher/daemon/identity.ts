/**
 * Who the launcher's libvirt runs as. libvirtd started by root always runs in system mode, whose paths cannot
 * be moved; so root runs it as Debian's QEMU user `libvirt-qemu` (group kvm) in session mode, as KubeVirt's
 * non-root launcher runs virtqemud. Anyone else runs it as themselves.
 */
import { chown, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Identity } from './process.ts';

export const DAEMON_USER = 'libvirt-qemu';

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

/** Hands a directory (and everything under it) to the daemons' user; nothing to do when that is us. */
export async function giveTree(path: string, id: Identity): Promise<void> {
  if (id.name === 'self') return;
  await chown(path, id.uid, id.gid);
  for (const e of await readdir(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) await giveTree(p, id);
    else await chown(p, id.uid, id.gid);
  }
}

/** Hands only the given directories themselves to the daemons' user. */
export async function giveDirs(paths: readonly string[], id: Identity): Promise<void> {
  if (id.name === 'self') return;
  for (const p of paths) await chown(p, id.uid, id.gid);
}
