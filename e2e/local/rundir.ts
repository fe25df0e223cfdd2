/** The stack's short dir under /run (shim sockets, runc state): unix socket paths must stay under 108 bytes. */
import { createHash } from 'node:crypto';

export function runDirFor(stackDir: string): string {
  return `/run/kubevirt-ts-${createHash('sha256').update(stackDir).digest('hex').slice(0, 8)}`;
}
