/**
 * The launcher: VMI → domain XML conversion time; SyncVirtualMachine until the domain runs against the
 * baseline of the same XML defined and started over our libvirt RPC client (lib/libvirt: define + create on an
 * open connection) on the same private libvirt, so the ratio is the launcher's own work, with `virsh define` +
 * `virsh start` (two process spawns each round) beside it (rounds alternate, medians);
 * SyncVirtualMachine to the guest's marker on the serial console; the launcher process's own memory (libvirtd,
 * virtlogd and QEMU are other processes) once idle and after the syncs, run as the image runs it (the
 * scripts/build.mjs bundle with the launcher's node flags, as dist/virt runs it; and without them), next to Node 24 itself with http2 loaded (the floor of any gRPC
 * server on Node). Guests run under whatever the launcher picks (TCG on these machines).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ensureGuests, GUEST_CMDLINE, MARKER } from '../testenv/guests/guests.ts';
import { ensureKvmDeviceAccess } from '../lib/libvirt/daemon/kvm-device.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { toDomainXml } from '../lib/launcher/converter/index.ts';
import { libvirtLayout } from '../lib/libvirt/daemon/layout.ts';
import { SESSION_URI } from '../lib/libvirt/daemon/libvirt-daemon.ts';
import {
  createDomain,
  defineDomain,
  destroyDomain,
  DOMAIN_XML,
  getDomainXml,
  LibvirtConnection,
  lookupDomainByName,
  undefineDomain,
} from '../lib/libvirt/index.ts';
import { LAUNCHER_NODE_FLAGS } from '../lib/launcher/node-flags.ts';
import { syncContext } from '../lib/launcher/sync/context.ts';
import {
  domainStatus,
  kernelBootVmi,
  startLauncher,
  type LauncherProcess,
} from '../lib/launcher/testing/harness.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const run = promisify(execFile);
const ROUNDS = 5;
const CONVERSIONS = 5000;
const UID = 'c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f';
const NAME = 'bench';

const MiB = 1024 * 1024;

interface Memory {
  rss: number;
  anon: number;
}

/** VmRSS and its anonymous (private) part, in bytes; the rest is mostly the node binary's shared pages. */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon') };
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

/** The image's bundle (scripts/build.mjs) in a temporary directory; the command that runs its launcher. */
async function buildBundle(dir: string): Promise<string[]> {
  await run(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build.mjs'), dir]);
  return [join(dir, 'virt.mjs'), 'launcher'];
}

/** Node 24 with http2 loaded and nothing else: what any gRPC server on Node starts from. */
async function nodeFloor(): Promise<Memory> {
  const child = spawn(process.execPath, ['-e', "require('node:http2'); setInterval(() => {}, 1000)"]);
  try {
    await sleep(1000);
    return memoryOf(child.pid ?? 0);
  } finally {
    child.kill();
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

/** define + create of the XML over our client, as the launcher's own connection would (already open). */
async function rpcRound(conn: LibvirtConnection, xml: string): Promise<number> {
  const start = performance.now();
  const dom = await createDomain(conn, await defineDomain(conn, xml));
  const ms = performance.now() - start;
  await destroyDomain(conn, dom);
  await undefineDomain(conn, dom);
  return ms;
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
  rpcs: number[];
  virshes: number[];
  idle: Memory;
  busy: Memory;
}

async function syncVsVirsh(guest: { kernel: string; initrd: string }, command: string[]): Promise<Measured> {
  const l = await startLauncher({ name: NAME, uid: UID, guest, command });
  let conn: LibvirtConnection | undefined;
  try {
    await l.client.ping();
    const idle = memoryOf(l.child.pid ?? 0);
    conn = await LibvirtConnection.open({ socketPath: libvirtLayout(l.root).socketPath, uri: SESSION_URI });
    const syncs: Measured['syncs'] = [];
    const rpcs: number[] = [];
    const virshes: number[] = [];
    const xmlFile = join(l.root, 'domain.xml');
    let xml = '';
    for (let i = 0; i < ROUNDS; i++) {
      syncs.push(await syncRound(l, true));
      if (i === 0) {
        xml = await getDomainXml(
          conn,
          await lookupDomainByName(conn, `default_${NAME}`),
          DOMAIN_XML.INACTIVE,
        );
        writeFileSync(xmlFile, xml);
      }
      await removeDomain(l);
      rpcs.push(await rpcRound(conn, xml));
      virshes.push(await virshRound(l, xmlFile));
    }
    return { syncs, rpcs, virshes, idle, busy: memoryOf(l.child.pid ?? 0) };
  } finally {
    await conn?.close();
    await l.terminate(60_000).catch(() => null);
    await l.cleanup();
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
  const dir = mkdtempSync(join(tmpdir(), 'kv-launcher-bundle-'));
  let m: Measured;
  let plain: Measured;
  try {
    const command = await buildBundle(dir);
    m = await syncVsVirsh(guest, [...LAUNCHER_NODE_FLAGS, ...command]);
    plain = await syncVsVirsh(guest, command);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = await nodeFloor();
  const sync = median(m.syncs.map((s) => s.rpc));
  const rpc = median(m.rpcs);
  const virshed = median(m.virshes);
  const rounds = `median of ${ROUNDS}`;
  const flags = `node ${LAUNCHER_NODE_FLAGS.join(' ')}`;
  return [
    row('conversion, kernel-boot VMI', conv.kernelBoot, 'µs/VMI', `${CONVERSIONS} runs`),
    row('conversion, VMI with a containerDisk', conv.withDisks, 'µs/VMI'),
    row('SyncVirtualMachine (define, start paused, attach console, resume)', sync, 'ms', rounds),
    row('SyncVirtualMachine to the Running event on Notify', median(m.syncs.map((s) => s.running)), 'ms'),
    row('define + create of the same XML over lib/libvirt, same daemon', rpc, 'ms', rounds),
    row('SyncVirtualMachine / lib/libvirt define+create', sync / rpc, 'ratio', 'target ≤ 1.1'),
    row('virsh define + start of the same XML, same daemon', virshed, 'ms', `${rounds}; two process spawns`),
    row('SyncVirtualMachine / virsh define+start', sync / virshed, 'ratio'),
    row(
      'SyncVirtualMachine to the guest marker on the serial socket',
      median(m.syncs.map((s) => s.marker)),
      'ms',
      'TCG',
    ),
    row('launcher RSS, idle (as dist/virt runs it)', m.idle.rss / MiB, 'MiB', `target ≤ 60; ${flags}`),
    row(`launcher RSS after ${ROUNDS} syncs`, m.busy.rss / MiB, 'MiB', 'target ≤ 60'),
    row(`  of which anonymous (private to the process)`, m.busy.anon / MiB, 'MiB'),
    row(
      `launcher RSS after ${ROUNDS} syncs, node without those flags`,
      plain.busy.rss / MiB,
      'MiB',
      `anonymous ${(plain.busy.anon / MiB).toFixed(1)}`,
    ),
    row(
      'node 24 alone with http2 loaded (floor)',
      floor.rss / MiB,
      'MiB',
      `anonymous ${(floor.anon / MiB).toFixed(1)}`,
    ),
  ];
}
