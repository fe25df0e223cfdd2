/**
 * The QEMU processes a private libvirt started, found through their pid files under its layout: its domains
 * ($XDG_RUNTIME_DIR/libvirt/qemu/run/<name>.pid) and its capability probes
 * ($XDG_CONFIG_HOME/libvirt/qemu/lib/qmp-<id>/qmp.pid), which libvirt may leave behind when it is stopped mid-probe.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LibvirtLayout } from './layout.ts';

async function pidFiles(l: LibvirtLayout): Promise<string[]> {
  const probes = join(l.config, 'libvirt', 'qemu', 'lib');
  const list = async (dir: string, pick: (name: string) => string | undefined): Promise<string[]> =>
    existsSync(dir) ? (await readdir(dir)).flatMap((f) => pick(f) ?? []) : [];
  return [
    ...(await list(l.qemuRunDir, (f) => (f.endsWith('.pid') ? join(l.qemuRunDir, f) : undefined))),
    ...(await list(probes, (f) => (f.startsWith('qmp-') ? join(probes, f, 'qmp.pid') : undefined))),
  ];
}

const readPid = async (file: string): Promise<number> =>
  Number((await readFile(file, 'utf8').catch(() => '')).trim());

/** Pids of the QEMU processes (domains and capability probes) this daemon's layout records. */
export async function qemuPids(l: LibvirtLayout): Promise<number[]> {
  const pids = await Promise.all((await pidFiles(l)).map(readPid));
  return pids.filter((p) => Number.isInteger(p) && p > 0);
}
