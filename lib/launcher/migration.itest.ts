// Live migration between two launchers of one VMI, each with its own libvirt under its own root (two Pods on
// two nodes): this test plays both handlers. It prepares the target (SyncMigrationTarget), serves the
// source's proxy socket for the destination libvirt with a unix-to-unix relay (the handlers' proxy pair in
// one), and drives MigrateVirtualMachine and CancelVirtualMachineMigration on the source. QEMU's own stream
// goes through `<uid>-49152-source.sock`: libvirt hands the target the source's path, and on one host the
// target's QEMU listens at that very path, so no relay stands between the two QEMUs here. So it is for the
// copied disks' `<uid>-49153-source.sock` (disks_uri): the target's NBD server listens at the source's path.
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { ensureGuests, GUEST_CMDLINE, MARKER, type Guests } from '../../testenv/guests/guests.ts';
import { realClock } from '../kernel/clock.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { ensureKvmDeviceAccess } from '../libvirt/daemon/kvm-device.ts';
import { libvirtLayout } from '../libvirt/daemon/layout.ts';
import { nopLogger } from '../kernel/log/log.ts';
import type { MigrationMetadataJson } from '../rpc/index.ts';
import {
  kernelBootVmi,
  processesUnder,
  startMigrationPair,
  startRelay,
  type LauncherProcess,
} from './testing/harness.ts';

const UID = 'c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e01';
const NAME = 'mig';
const BOOT_MS = 240_000;
const MIGRATE_MS = 300_000;
/** The emptyDisk's capacity: 32 MiB, 65536 sectors. */
const SCRATCH_BYTES = 32 * 1024 * 1024;

let guests: Guests | undefined;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ensureKvmDeviceAccess(nopLogger);
  guests = await ensureGuests();
}, 600_000);

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The handlers' proxies, in one process; stopped after the test. */
async function relay(listen: string, to: string): Promise<void> {
  const r = await startRelay(listen, to);
  cleanups.push(r.close);
}

/**
 * The source running the guest, the target launcher started. With a data disk the guest is the agent guest
 * with the ext4 data disk as a containerDisk (a qcow2 overlay in each Pod over the image) at /mnt/data, and
 * an emptyDisk of SCRATCH_BYTES as /dev/vdb.
 */
async function bootedPair(
  o: { dataDisk?: boolean } = {},
): Promise<{ source: LauncherProcess; target: LauncherProcess; vmi: object }> {
  const g = guests;
  if (g === undefined) throw new Error('no guests');
  const dataDisk = o.dataDisk === true;
  const initrd = dataDisk ? g.agentInitrd : g.initrd;
  const pair = await startMigrationPair({
    name: NAME,
    uid: UID,
    guest: { kernel: g.kernel, initrd, ...(dataDisk && { dataDisk: g.dataDisk }) },
    gracePeriodSeconds: 2,
  });
  cleanups.push(pair.cleanup);
  const vmi = kernelBootVmi({
    name: NAME,
    uid: UID,
    initrd: basename(initrd),
    cmdline: GUEST_CMDLINE,
    dataDisk,
    ...(dataDisk && { emptyDisk: String(SCRATCH_BYTES) }),
  });
  expect(await pair.source.client.syncVirtualMachine(vmi)).toEqual({ success: true, message: '' });
  const booted = await pair.source.readSerial(MARKER, BOOT_MS);
  if (dataDisk) expect(booted).toContain('data=mounted');
  // Guest state the migration must keep: a shell variable, and a counter that goes on ticking.
  await pair.source.typeSerial(
    '\nKEPT=k$((6*7)); i=0; while :; do echo TICK $i; i=$((i+1)); sleep 1; done &\n',
  );
  await pair.source.readSerial('TICK 2', 60_000);
  return { ...pair, vmi };
}

function migratingVmi(vmi: object, migrationUid: string): object {
  return {
    ...vmi,
    status: {
      migrationState: {
        migrationUid,
        sourcePod: 'virt-launcher-mig-src',
        targetPod: 'virt-launcher-mig-dst',
      },
    },
  };
}

async function migrationOf(l: LauncherProcess): Promise<MigrationMetadataJson | undefined> {
  const d = (await l.client.getDomain()).payload as
    { Spec: { Metadata?: { KubeVirt: { Migration?: MigrationMetadataJson } } } } | undefined;
  return d?.Spec.Metadata?.KubeVirt.Migration;
}

async function ended(l: LauncherProcess, uid: string): Promise<MigrationMetadataJson> {
  return waitFor(
    async () => {
      const m = await migrationOf(l);
      return m?.UID === uid && m.EndTimestamp !== undefined ? m : undefined;
    },
    `migration ${uid} to end`,
    { timeoutMs: MIGRATE_MS, intervalMs: 500 },
  );
}

async function prepareAndMigrate(
  p: { source: LauncherProcess; target: LauncherProcess; vmi: object },
  migrationUid: string,
  options: object,
): Promise<void> {
  const vmi = migratingVmi(p.vmi, migrationUid);
  expect(await p.target.client.vmiCommand('syncMigrationTarget', vmi)).toEqual({
    success: true,
    message: '',
  });
  await relay(p.source.paths.migrationSocket(UID, 0), libvirtLayout(p.target.root).socketPath);
  const request = {
    vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
    options: Buffer.from(JSON.stringify({ ...options, TargetPodRoot: p.target.root })),
  };
  const r = await p.source.client.call('migrateVirtualMachine', request);
  expect(r.success).toBe(true);
}

const status = async (l: LauncherProcess): Promise<unknown> =>
  ((await l.client.getDomain()).payload as { Status?: { Status: string; Reason: string } } | undefined)
    ?.Status;

const qemuUnder = (root: string): number[] =>
  processesUnder(root).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('qemu-system'));

describe('live migration between two launchers', () => {
  it('moves the running guest to the target: same guest state, source domain gone, metadata completed', async () => {
    const p = await bootedPair();
    const before = Date.now();
    await prepareAndMigrate(p, 'mig-ok', {
      Bandwidth: '0',
      ProgressTimeout: 150,
      CompletionTimeoutPerGiB: 800,
    });
    const m = await ended(p.source, 'mig-ok');
    expect(m).toEqual(
      expect.objectContaining({ UID: 'mig-ok', Mode: 'PreCopy', StartTimestamp: expect.any(String) }),
    );
    expect(m.Failed).toBeUndefined();
    expect(Date.parse(m.StartTimestamp ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(m.EndTimestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(m.StartTimestamp ?? ''));

    expect(await status(p.target)).toEqual(
      expect.objectContaining({ Status: 'Running', Reason: 'Migrated' }),
    );
    // The target records the end once its incoming job is gone: its handler takes the VMI over by it.
    const arrived = await ended(p.target, 'mig-ok');
    expect(Date.parse(arrived.EndTimestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(m.StartTimestamp ?? ''));
    expect(await status(p.source)).toEqual(
      expect.objectContaining({ Status: 'Shutoff', Reason: 'Migrated' }),
    );
    await waitFor(() => qemuUnder(p.source.root).length === 0 || undefined, 'the source QEMU to exit', {
      timeoutMs: 30_000,
    });
    expect(qemuUnder(p.target.root)).toHaveLength(1);
    expect(
      (await p.target.client.vmiCommand('finalizeVirtualMachineMigration', migratingVmi(p.vmi, 'mig-ok')))
        .success,
    ).toBe(true);

    // The same guest: the counter goes on, the shell still holds its variable, no second boot.
    const out = await p.target.readSerial('TICK', 60_000);
    expect(out).not.toContain(MARKER);
    await p.target.typeSerial('echo "KEPT IS $KEPT"\n');
    const shown = await p.target.readSerial('KEPT IS k42', 60_000);
    expect(shown).not.toContain(MARKER);
    const ticks = [...shown.matchAll(/TICK (\d+)/g)].map((t) => Number(t[1]));
    expect(Math.min(...ticks)).toBeGreaterThan(2);
  }, 900_000);

  it('fails a migration that cannot finish in time and cancels another: the guest stays on the source', async () => {
    const p = await bootedPair();
    await prepareAndMigrate(p, 'mig-slow', {
      Bandwidth: '1Mi',
      ProgressTimeout: 5,
      CompletionTimeoutPerGiB: 6,
    });
    const failed = await ended(p.source, 'mig-slow');
    expect(failed).toEqual(
      expect.objectContaining({
        Failed: true,
        AbortStatus: 'Succeeded',
        FailureReason: expect.stringMatching(/has been aborted/),
      }),
    );
    expect(await status(p.source)).toEqual(expect.objectContaining({ Status: 'Running' }));
    await p.source.typeSerial('echo "STILL $KEPT"\n');
    await p.source.readSerial('STILL k42', 60_000);

    await prepareAndMigrate(p, 'mig-cancel', { Bandwidth: '1Mi' });
    await waitFor(
      async () => (await migrationOf(p.source))?.UID === 'mig-cancel' || undefined,
      'the second migration',
      {
        timeoutMs: 30_000,
      },
    );
    await realClock.sleep(3000);
    const vmi = migratingVmi(p.vmi, 'mig-cancel');
    expect((await p.source.client.vmiCommand('cancelVirtualMachineMigration', vmi)).success).toBe(true);
    const cancelled = await ended(p.source, 'mig-cancel');
    expect(cancelled).toEqual(expect.objectContaining({ Failed: true, AbortStatus: 'Succeeded' }));
    expect(await status(p.source)).toEqual(expect.objectContaining({ Status: 'Running' }));
    // Cancelling what no longer runs is refused in-band.
    const again = await p.source.client.vmiCommand('cancelVirtualMachineMigration', vmi);
    expect(again).toEqual({ success: false, message: expect.stringMatching(/not migrating/) });
    await p.source.typeSerial('echo "AFTER $KEPT"\n');
    await p.source.readSerial('AFTER k42', 60_000);
  }, 900_000);
  it('copies the local disks (containerDisk overlay, emptyDisk): what the guest wrote is on the target disks', async () => {
    const p = await bootedPair({ dataDisk: true });
    // Written through to the disks: without the copy the target's fresh overlay shows the image only, and its
    // fresh emptyDisk zeros.
    await p.source.typeSerial(
      'echo "BLOCK $KEPT" > /mnt/data/kept && echo "RAW $KEPT" | dd of=/dev/vdb conv=fsync 2>/dev/null && sync && echo WROTE-$((6*7))\n',
    );
    await p.source.readSerial('WROTE-42', 60_000);
    await prepareAndMigrate(p, 'mig-disk', {
      Bandwidth: '0',
      ProgressTimeout: 150,
      CompletionTimeoutPerGiB: 800,
    });
    const m = await ended(p.source, 'mig-disk');
    expect(m.Failed).toBeUndefined();
    expect(await status(p.target)).toEqual(
      expect.objectContaining({ Status: 'Running', Reason: 'Migrated' }),
    );
    // The guest forgets its caches: both are read from the target's disks; the emptyDisk keeps its size.
    await p.target.typeSerial(
      'sync; echo 3 > /proc/sys/vm/drop_caches; echo "READ $(cat /mnt/data/kept 2>&1) $(head -c 7 /dev/vdb) $(cat /sys/block/vdb/size)-$((6*7))"\n',
    );
    const shown = await p.target.readSerial('-42', 60_000);
    expect(shown).toContain(`READ BLOCK k42 RAW k42 ${String(SCRATCH_BYTES / 512)}-42`);
    const launcherLog = readFileSync(`${p.source.root}/launcher.log`, 'utf8');
    expect(launcherLog).toMatch(/"msg":"live migration starting".*"copiedDisks":\["vda","vdb"\]/);
  }, 900_000);
});
