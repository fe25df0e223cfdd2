/**
 * libvirt probes every QEMU binary it finds on its first use (about 4 s per binary on these machines) and
 * caches the result as XML under $XDG_CACHE_HOME/libvirt/qemu/cache/capabilities. Private daemons start
 * with an empty cache, so we carry those files from one daemon to the next through a shared directory.
 * libvirt validates each file (binary and libvirt timestamps, host kernel, KVM access) and re-probes when it
 * is stale, so a seeded cache is never wrong, only faster.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_CAPS_CACHE = join(tmpdir(), 'kv-libvirt-qemu-caps');

const capsDir = (xdgCacheHome: string): string =>
  join(xdgCacheHome, 'libvirt', 'qemu', 'cache', 'capabilities');
const xmlFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.xml')) : [];

/** Copies the shared cache into a daemon's cache home (before the daemon starts). */
export function seedCapsCache(shared: string, xdgCacheHome: string): number {
  const to = capsDir(xdgCacheHome);
  mkdirSync(to, { recursive: true });
  const files = xmlFiles(shared);
  for (const f of files) copyFileSync(join(shared, f), join(to, f));
  return files.length;
}

/** Copies the daemon's cache back to the shared one (each file replaced atomically). */
export function saveCapsCache(xdgCacheHome: string, shared: string): void {
  const from = capsDir(xdgCacheHome);
  mkdirSync(shared, { recursive: true });
  for (const f of xmlFiles(from)) {
    const tmp = join(shared, `.${f}.${process.pid}.tmp`);
    copyFileSync(join(from, f), tmp);
    renameSync(tmp, join(shared, f));
  }
}
