/**
 * The launcher: VMI → domain XML conversion time; SyncVirtualMachine until the domain runs against
 * `virsh define` + `virsh start` of the same XML on the same private libvirt (rounds alternate, medians);
 * SyncVirtualMachine to the guest's marker on the serial console; the launcher process's own RSS (libvirtd,
 * virtlogd and QEMU are other processes) once idle and after the syncs. Guests run under whatever the
 * launcher picks (TCG on these machines).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureGuests, GUEST_CMDLINE, MARKER } from '../e2e/guests/guests.ts';
import { ensureKvmDeviceAccess } from '../lib/launcher/daemon/kvm-device.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { toDomainXml } from '../lib/launcher/converter/index.ts';
import { libvirtLayout } from '../lib/launcher/daemon/layout.ts';
import { syncContext } from '../lib/launcher/sync/context.ts';
import {
  domainStatus,
  kernelBootVmi,
  RUN_LAUNCHER,
  startLauncher,
  type LauncherProcess,
} from '../lib/launcher/testdata/harness.ts';
import type { BenchContext, BenchRow } from './table.ts';

const run = promisify(execFile);
const ROUNDS = 5;
const CONVERSIONS = 5000;
const UID = 'c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f';
const NAME = 'bench';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const MiB = 1024 * 1024;

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) * 1024;
}

function conversionMicros(): { kernelBoot: number; withDisks: number } {
  const ctx = syncContext(
    { root: '/tmp/kvl-bench', arch: 'amd64', emulation: true, directIo: true },
    undefined,
  );
  const time = (vmi: ReturnType<typeof kernelBootVmi>): number => {
    for (let i = 0; i < 200; i++) toDomainXml(vmi, ctx);
    const start = performance.now();
    for (let i = 0; i < CONVERSIONS; i++) toDomainXml(vmi, ctx);
    return ((performance.now() - start) * 1000) / CONVERSIONS;
  };
  const plain = kernelBootVmi({ name: NAME, uid: UID, initrd: 'initramfs.cpio.gz', cmdline: GUEST_CMDLINE });
  const disks = kernelBootVmi({ name: NAME, uid: UID, initrd: 'i', cmdline: GUEST_CMDLINE, dataDisk: true });
  return { kernelBoot: time(plain), withDisks: time(disks) };
}

/** `virt launcher` as one esbuild bundle run by plain node: how an image would ship it (no tsx loader). */
function bundle(dir: string): string {
  const out = join(dir, 'launcher.mjs');
  buildSync({
    entryPoints: [RUN_LAUNCHER],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    outfile: out,
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  return out;
}

async function idleRss(
  command: readonly string[],
  guest: { kernel: string; initrd: string },
): Promise<number> {
  const l = await startLauncher({ name: NAME, uid: UID, guest, command });
  try {
    await l.client.ping();
    return rssBytes(l.child.pid ?? 0);
  } finally {
    await l.terminate(60_000).catch(() => null);
    await l.cleanup();
  }
}

async function virsh(l: LauncherProcess, ...args: string[]): Promise<string> {
  const uri = `qemu+unix:///session?socket=${libvirtLayout(l.root).socketPath}`;
  return (await run('virsh', ['-q', '-c', uri, ...args])).stdout;
}

async function syncRound(
  l: LauncherProcess,
  marker: boolean,
): Promise<{ rpc: number; running: number; marker: number }> {
  const vmi = kernelBootVmi({ name: NAME, uid: UID, initrd: 'initramfs.cpio.gz', cmdline: GUEST_CMDLINE });
  const from = l.events.length;
  const start = performance.now();
  const r = await l.client.syncVirtualMachine(vmi);
  const rpc = performance.now() - start;
  if (!r.success) throw new Error(`sync failed: ${r.message}`);
  await l.waitEvent((e) => domainStatus(e).Status === 'Running', 10_000, from);
  const running = performance.now() - start;
  if (marker) await l.readSerial(MARKER, 60_000);
  const toMarker = performance.now() - start;
  return { rpc, running, marker: toMarker };
}

async function removeDomain(l: LauncherProcess): Promise<void> {
  const vmi = kernelBootVmi({ name: NAME, uid: UID, initrd: 'initramfs.cpio.gz', cmdline: GUEST_CMDLINE });
  for (const m of ['killVirtualMachine', 'deleteVirtualMachine'] as const) {
    const r = await l.client.vmiCommand(m, vmi);
    if (!r.success) throw new Error(`${m}: ${r.message}`);
  }
}

async function virshRound(l: LauncherProcess, xmlFile: string): Promise<number> {
  const start = performance.now();
  await virsh(l, 'define', xmlFile);
  await virsh(l, 'start', `default_${NAME}`);
  const ms = performance.now() - start;
  await virsh(l, 'destroy', `default_${NAME}`);
  await virsh(l, 'undefine', `default_${NAME}`);
  return ms;
}

interface Measured {
  syncs: { rpc: number; running: number; marker: number }[];
  virshes: number[];
  idle: number;
  busy: number;
}

async function syncVsVirsh(guest: { kernel: string; initrd: string }): Promise<Measured> {
  const l = await startLauncher({ name: NAME, uid: UID, guest });
  try {
    const idle = rssBytes(l.child.pid ?? 0);
    const syncs: Measured['syncs'] = [];
    const virshes: number[] = [];
    const xmlFile = join(l.root, 'domain.xml');
    for (let i = 0; i < ROUNDS; i++) {
      syncs.push(await syncRound(l, true));
      if (i === 0) writeFileSync(xmlFile, await virsh(l, 'dumpxml', '--inactive', `default_${NAME}`));
      await removeDomain(l);
      virshes.push(await virshRound(l, xmlFile));
    }
    return { syncs, virshes, idle, busy: rssBytes(l.child.pid ?? 0) };
  } finally {
    await l.terminate(60_000).catch(() => null);
    await l.cleanup();
  }
}

async function bundledIdleRss(guest: { kernel: string; initrd: string }): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kv-launcher-bundle-'));
  try {
    return await idleRss([bundle(dir)], guest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const row = (name: string, value: number, unit: string, note?: string): BenchRow =>
  note === undefined ? { name, value, unit } : { name, value, unit, note };

export default async function launcherBench(ctx: BenchContext): Promise<BenchRow[]> {
  ensureKvmDeviceAccess(nopLogger);
  const guests = await ensureGuests();
  const guest = { kernel: guests.kernel, initrd: guests.initrd };
  const conv = conversionMicros();
  ctx.log(
    `conversion: ${conv.kernelBoot.toFixed(1)} µs (kernel boot), ${conv.withDisks.toFixed(1)} µs (with a disk)`,
  );
  const m = await syncVsVirsh(guest);
  const bundled = await bundledIdleRss(guest);
  const sync = median(m.syncs.map((s) => s.rpc));
  const define = median(m.virshes);
  const rounds = `median of ${ROUNDS}`;
  return [
    row('conversion, kernel-boot VMI', conv.kernelBoot, 'µs/VMI', `${CONVERSIONS} runs`),
    row('conversion, VMI with a containerDisk', conv.withDisks, 'µs/VMI'),
    row('SyncVirtualMachine (define, start paused, attach console, resume)', sync, 'ms', rounds),
    row('SyncVirtualMachine to the Running event on Notify', median(m.syncs.map((s) => s.running)), 'ms'),
    row('virsh define + start of the same XML, same daemon', define, 'ms', rounds),
    row('SyncVirtualMachine / virsh define+start', sync / define, 'ratio', 'target ≤ 1.1'),
    row(
      'SyncVirtualMachine to the guest marker on the serial socket',
      median(m.syncs.map((s) => s.marker)),
      'ms',
      'TCG',
    ),
    row('launcher RSS, idle, via tsx (as bin/virt runs it)', m.idle / MiB, 'MiB', 'target ≤ 60'),
    row(`launcher RSS via tsx after ${ROUNDS} syncs`, m.busy / MiB, 'MiB', 'target ≤ 60'),
    row('launcher RSS, idle, one esbuild bundle on plain node', bundled / MiB, 'MiB', 'target ≤ 60'),
  ];
}
