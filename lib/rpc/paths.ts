/**
 * Where the handler <-> launcher sockets live (kubevirt pkg/handler-launcher-com, ARCHITECTURE.md
 * "Ports and paths"). Every path sits under a root prefix so several launchers and handlers run side
 * by side, unprivileged, in local mode and in tests; the root "/" gives the in-Pod paths.
 */
import path from 'node:path';
import { KvError } from '../kernel/errors/errors.ts';

export interface RpcPaths {
  /** Command socket the launcher serves once it is ready. */
  readonly launcherSocket: string;
  /** Command socket the launcher serves before its domain manager is initialized. */
  readonly launcherInitSocket: string;
  /** Socket the handler serves for Notify. */
  readonly notifySocket: string;
  /** Per-VMI private directory (serial console, VNC). */
  vmiPrivateDir(vmiUid: string): string;
  serialSocket(vmiUid: string): string;
  serialLog(vmiUid: string): string;
  vncSocket(vmiUid: string): string;
}

const SOCKETS_DIR = 'var/run/kubevirt/sockets';
const PRIVATE_DIR = 'var/run/kubevirt-private';
const UID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function privateDir(root: string, vmiUid: string): string {
  if (!UID_RE.test(vmiUid) || vmiUid.includes('..')) {
    throw new KvError('KV_ERR_CONFIG', `invalid VMI uid for a path: ${JSON.stringify(vmiUid)}`);
  }
  return path.join(root, PRIVATE_DIR, vmiUid);
}

/** Paths under `root`, which must be absolute ("/" for the paths a Pod sees). */
export function rpcPaths(root: string): RpcPaths {
  if (!path.isAbsolute(root)) {
    throw new KvError('KV_ERR_CONFIG', `socket root must be an absolute path, got ${JSON.stringify(root)}`);
  }
  const base = path.resolve(root);
  return {
    launcherSocket: path.join(base, SOCKETS_DIR, 'launcher-sock'),
    launcherInitSocket: path.join(base, SOCKETS_DIR, 'launcher-init-sock'),
    notifySocket: path.join(base, 'var/run/kubevirt/domain-notify.sock'),
    vmiPrivateDir: (uid) => privateDir(base, uid),
    serialSocket: (uid) => path.join(privateDir(base, uid), 'virt-serial0'),
    serialLog: (uid) => path.join(privateDir(base, uid), 'virt-serial0-log'),
    vncSocket: (uid) => path.join(privateDir(base, uid), 'virt-vnc'),
  };
}
