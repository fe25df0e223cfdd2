/**
 * Live migration of an idle 256 MiB guest (TCG on these machines) between two launchers on this host, each with
 * its own libvirt, through a unix relay standing in for the handlers' proxies (lib/launcher/testing/harness.ts):
 * MigrateVirtualMachine on the source launcher until its migration metadata ends, against `virsh migrate --live
 * --p2p --persistent` of the same kind of domain between the same kind of daemon pair, through the same relay
 * with the same migrate URI and the same retargeted XML. Rounds alternate, a fresh pair each; medians.
 * Downtime two ways: the gap in a counter the guest prints every 50 ms on its serial console (last line read from
 * the source's console to the first from the target's), and libvirt's completed-job `downtime`.
 */
import { execFile } from 'node:child_process';
import { chownSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { ensureGuests, GUEST_CMDLINE, MARKER } from '../testenv/guests/guests.ts';
import { ensureKvmDeviceAccess } from '../lib/libvirt/daemon/kvm-device.ts';
import { libvirtLayout } from '../lib/libvirt/daemon/layout.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { destinationUris, retargetXml } from '../lib/launcher/migration/uris.ts';
import type { MigrationMetadataJson } from '../lib/rpc/index.ts';
import {
  kernelBootVmi,
  startMigrationPair,
  startRelay,
  type LauncherProcess,
} from '../lib/launcher/testing/harness.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const run = promisify(execFile);
const ROUNDS = 3;
const UID = 'c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e02';
const NAME = 'migbench';
const DOMAIN = `default_${NAME}`;
const MEMORY = '256Mi';
const TICK_MS = 50;
const BOOT_MS = 240_000;
const MIGRATE_MS = 300_000;

type Kind = 'ours' | 'virsh';

interface Round {
  totalMs: number;
  tickGapMs: number;
  libvirtDowntimeMs: number;
}

/** Timestamps (performance.now) of the tick lines read from one serial console, connecting until it serves. */
class TickReader {
  readonly times: number[] = [];
  private socket: Socket | undefined;
  private stopped = false;
  private rest = '';

  constructor(private readonly path: string) {
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const s = createConnection({ path: this.path });
    s.on('data', (b: Buffer) => {
      const now = performance.now();
      const lines = (this.rest + b.toString('utf8')).split('\n');
      this.rest = lines.pop() ?? '';
      for (const l of lines) if (/^TK \d/.test(l.trim())) this.times.push(now);
    });
    s.on('error', () => {
      s.destroy();
      if (this.socket === undefined)
        setTimeout(() => {
          this.connect();
        }, 20);
    });
    s.on('connect', () => {
      this.socket = s;
    });
  }

  stop(): void {
    this.stopped = true;
    this.socket?.destroy();
  }
}

async function virsh(l: LauncherProcess, ...args: string[]): Promise<string> {
  const uri = `qemu+unix:///session?socket=${libvirtLayout(l.root).socketPath}`;
  return (await run('virsh', ['-q', '-c', uri, ...args], { timeout: MIGRATE_MS })).stdout;
}

/** The completed job's downtime (ms) from either side's libvirt; NaN when neither keeps it. */
async function libvirtDowntime(source: LauncherProcess, target: LauncherProcess): Promise<number> {
  for (const l of [source, target]) {
    const out = await virsh(l, 'domjobinfo', '--completed', DOMAIN).catch(() => '');
    const m = /Total downtime:\s+(\d+)\s*ms/.exec(out);
    if (m !== null) return Number(m[1]);
  }
  return NaN;
}

function migratingVmi(vmi: object, migrationUid: string): object {
  return {
    ...vmi,
    status: { migrationState: { migrationUid, sourcePod: 'launcher-src', targetPod: 'launcher-dst' } },
  };
}

async function migrationEnded(l: LauncherProcess, uid: string): Promise<MigrationMetadataJson> {
  return waitFor(
    async () => {
      const d = (await l.client.getDomain()).payload as
        { Spec: { Metadata?: { KubeVirt: { Migration?: MigrationMetadataJson } } } } | undefined;
      const m = d?.Spec.Metadata?.KubeVirt.Migration;
      return m?.UID === uid && m.EndTimestamp !== undefined ? m : undefined;
    },
    `migration ${uid} to end`,
    { timeoutMs: MIGRATE_MS, intervalMs: 20 },
  );
}

async function oneRound(kind: Kind, guest: { kernel: string; initrd: string }, i: number): Promise<Round> {
  const pair = await startMigrationPair({ name: NAME, uid: UID, guest, gracePeriodSeconds: 2 });
  const { source, target } = pair;
  const readers: TickReader[] = [];
  let relay: { close: () => Promise<void> } | undefined;
  try {
    const vmi = kernelBootVmi({
      name: NAME,
      uid: UID,
      initrd: basename(guest.initrd),
      cmdline: GUEST_CMDLINE,
      memory: MEMORY,
    });
    const synced = await source.client.syncVirtualMachine(vmi);
    if (!synced.success) throw new Error(`sync: ${synced.message}`);
    await source.readSerial(MARKER, BOOT_MS);
    await source.typeSerial(`\ni=0; while :; do echo TK $i; i=$((i+1)); sleep ${TICK_MS / 1000}; done &\n`);
    await source.readSerial('TK 20', 60_000);
    const migrationUid = `${kind}-${i}`;
    const migrating = migratingVmi(vmi, migrationUid);
    const prepared = await target.client.vmiCommand('syncMigrationTarget', migrating);
    if (!prepared.success) throw new Error(`syncMigrationTarget: ${prepared.message}`);
    relay = await startRelay(source.paths.migrationSocket(UID, 0), libvirtLayout(target.root).socketPath);
    const from = new TickReader(source.paths.serialSocket(UID));
    const to = new TickReader(target.paths.serialSocket(UID));
    readers.push(from, to);
    await waitFor(() => from.times.length > 5 || undefined, 'ticks on the source console', {
      timeoutMs: 30_000,
    });

    let start: number;
    if (kind === 'ours') {
      const options = {
        Bandwidth: '0',
        ProgressTimeout: 150,
        CompletionTimeoutPerGiB: 800,
        TargetPodRoot: target.root,
      };
      start = performance.now();
      const r = await source.client.call('migrateVirtualMachine', {
        vmi: { vmiJson: Buffer.from(JSON.stringify(migrating)) },
        options: Buffer.from(JSON.stringify(options)),
      });
      if (!r.success) throw new Error(`migrateVirtualMachine: ${r.message}`);
      const m = await migrationEnded(source, migrationUid);
      if (m.Failed === true) throw new Error(`migration failed: ${m.FailureReason ?? ''}`);
    } else {
      // What the source launcher does before its own call: the proxy's socket directory, owned by the daemons'
      // user (the target's QEMU binds the stream socket there); the target's, from syncMigrationTarget, shows who.
      const owner = statSync(target.paths.migrationProxyDir);
      chownSync(source.paths.migrationProxyDir, owner.uid, owner.gid);
      const uris = destinationUris(source.paths, UID);
      const xmlFile = join(source.root, 'migrate.xml');
      const xml = await virsh(source, 'dumpxml', '--migratable', DOMAIN);
      writeFileSync(xmlFile, retargetXml(xml, source.root, target.root));
      start = performance.now();
      await virsh(
        source,
        ...['migrate', '--live', '--p2p', '--persistent', '--xml', xmlFile],
        ...[DOMAIN, uris.dconnuri, '--migrateuri', uris.migrateUri],
      );
    }
    const totalMs = performance.now() - start;
    await waitFor(() => to.times.length > 5 || undefined, 'ticks on the target console', {
      timeoutMs: 60_000,
    });
    const lastOnSource = from.times.filter((t) => t < (to.times[0] ?? Infinity)).at(-1) ?? NaN;
    return {
      totalMs,
      tickGapMs: (to.times[0] ?? NaN) - lastOnSource,
      libvirtDowntimeMs: await libvirtDowntime(source, target),
    };
  } finally {
    for (const r of readers) r.stop();
    await relay?.close();
    await pair.cleanup();
  }
}

const row = (name: string, value: number, unit: string, note?: string): BenchRow =>
  note === undefined ? { name, value, unit } : { name, value, unit, note };

export default async function migrationBench(ctx: BenchContext): Promise<BenchRow[]> {
  ensureKvmDeviceAccess(nopLogger);
  const guests = await ensureGuests();
  const guest = { kernel: guests.kernel, initrd: guests.initrd };
  const rounds: Record<Kind, Round[]> = { ours: [], virsh: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of i % 2 === 0 ? (['ours', 'virsh'] as const) : (['virsh', 'ours'] as const)) {
      const r = await oneRound(kind, guest, i);
      ctx.log(
        `${kind} #${i}: total ${r.totalMs.toFixed(0)} ms, tick gap ${r.tickGapMs.toFixed(0)} ms, ` +
          `libvirt downtime ${r.libvirtDowntimeMs} ms`,
      );
      rounds[kind].push(r);
    }
  }
  const med = (k: Kind, f: keyof Round): number => median(rounds[k].map((r) => r[f]));
  const all = (k: Kind, f: keyof Round): string => rounds[k].map((r) => r[f].toFixed(0)).join(', ');
  const n = `median of ${ROUNDS}`;
  return [
    row(
      'MigrateVirtualMachine to the end of the migration metadata',
      med('ours', 'totalMs'),
      'ms',
      `${n}: ${all('ours', 'totalMs')}`,
    ),
    row(
      'virsh migrate --live --p2p --persistent, same pair of daemons',
      med('virsh', 'totalMs'),
      'ms',
      `${n}: ${all('virsh', 'totalMs')}`,
    ),
    row('total time, ours / virsh', med('ours', 'totalMs') / med('virsh', 'totalMs'), 'ratio'),
    row(
      'downtime (guest tick gap on the consoles), ours',
      med('ours', 'tickGapMs'),
      'ms',
      `${all('ours', 'tickGapMs')}; ticks every ${TICK_MS} ms`,
    ),
    row(
      'downtime (guest tick gap on the consoles), virsh',
      med('virsh', 'tickGapMs'),
      'ms',
      all('virsh', 'tickGapMs'),
    ),
    row('tick-gap downtime, ours / virsh', med('ours', 'tickGapMs') / med('virsh', 'tickGapMs'), 'ratio'),
    row(
      'downtime (libvirt completed job), ours',
      med('ours', 'libvirtDowntimeMs'),
      'ms',
      all('ours', 'libvirtDowntimeMs'),
    ),
    row(
      'downtime (libvirt completed job), virsh',
      med('virsh', 'libvirtDowntimeMs'),
      'ms',
      all('virsh', 'libvirtDowntimeMs'),
    ),
  ];
}
