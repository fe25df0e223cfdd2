// Runs the real xorrisofs (scripts/install.sh installs xorriso) in a temp directory.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBeneath, withHandle } from '../../kernel/safepath/index.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import type { IsoImage } from './image.ts';
import { writeIso, xorrisofsArgs } from './iso.ts';
import { isoContents, isoVolumeId } from './testing/fs.ts';

const SELF: Identity = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, name: 'self' };
let dir: string;

/** writeIso into the image's directory, opened as the launcher opens it. */
function write(image: IsoImage, id: Identity): Promise<void> {
  return withHandle(openBeneath(join(image.isoPath, '..'), '', ['directory']), (d) => writeIso(image, d, id));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kv-configdisk-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('xorrisofsArgs', () => {
  it('builds KubeVirt flags with escaped graft points', () => {
    const args = xorrisofsArgs({
      output: '/o.iso.staging',
      label: 'cfgdata',
      rootDir: '/s',
      grafts: [{ path: 'a=b', source: '/m/a\\b' }],
    });
    expect(args).toEqual([
      ...['-output', '/o.iso.staging', '-follow-links', '-volid', 'cfgdata', '-joliet', '-rock'],
      ...['-graft-points', '-partition_cyl_align', 'on', '/=/s', 'a\\=b=/m/a\\\\b'],
    ]);
  });
});

describe('writeIso', () => {
  it('writes made-up and mounted files (symlinks followed, directories whole) under the label', async () => {
    const mount = join(dir, 'mount');
    mkdirSync(join(mount, '..2025_01_01', 'sub'), { recursive: true });
    writeFileSync(join(mount, '..2025_01_01', 'key'), 'value\n');
    writeFileSync(join(mount, '..2025_01_01', 'sub', 'deep'), 'deep\n');
    symlinkSync(join(mount, '..2025_01_01', 'key'), join(mount, 'key'));
    const iso = join(dir, 'config.iso');
    writeFileSync(iso, 'the previous image');
    await write(
      {
        volume: 'v',
        isoPath: iso,
        label: 'config-2',
        files: [
          { path: 'openstack/latest/user_data', content: Buffer.from('#cloud-config\n') },
          { path: 'key', sourceFile: join(mount, 'key') },
          { path: 'sub', sourceFile: join(mount, '..2025_01_01', 'sub') },
        ],
      },
      SELF,
    );
    expect(await isoContents(iso)).toEqual({
      'openstack/latest/user_data': '#cloud-config\n',
      key: 'value\n',
      'sub/deep': 'deep\n',
    });
    expect(await isoVolumeId(iso)).toBe('config-2');
    expect(statSync(iso).mode & 0o777).toBe(0o600);
    // No staging image and no scratch directory left behind.
    expect(readdirSync(dir).sort()).toEqual(['config.iso', 'mount']);
  });

  it('fails naming the image, removes the staging file and keeps the previous image', async () => {
    const iso = join(dir, 'secret.iso');
    writeFileSync(iso, 'the previous image');
    const image = {
      volume: 'sec',
      isoPath: iso,
      label: 'cfgdata',
      files: [{ path: 'k', sourceFile: join(dir, 'gone') }],
    };
    await expect(write(image, SELF)).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `cannot write the ISO image ${iso} of volume sec`,
    });
    expect(readdirSync(dir)).toEqual(['secret.iso']);
    expect(statSync(iso).size).toBe('the previous image'.length);
  });

  it("never writes, chmods or chowns through what the daemons' user plants in the directory", async () => {
    // The daemons' user (here nobody) owns the image's directory, as in root mode. It swaps the old staging
    // image, once xorriso made it, for a link to a host file, and every scratch directory it sees for a link
    // to another directory.
    const daemon: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
    const outside = join(dir, 'outside');
    const isoDir = join(dir, 'disks');
    mkdirSync(outside);
    mkdirSync(isoDir);
    chmodSync(dir, 0o755);
    chownSync(isoDir, daemon.uid, daemon.gid);
    const precious = join(outside, 'precious');
    writeFileSync(precious, 'precious\n', { mode: 0o644 });
    const before = () => [readFileSync(precious, 'utf8'), statSync(precious).uid, statSync(precious).mode];
    const want = before();
    const script = [
      'n=0',
      'while :; do',
      '  if [ -f cfg.iso.staging ] && [ ! -L cfg.iso.staging ]; then',
      `    rm -f cfg.iso.staging; ln -s ${precious} cfg.iso.staging`,
      '  fi',
      '  for e in .cfg.iso.*; do',
      '    if [ -d "$e" ] && [ ! -L "$e" ]; then n=$((n+1)); mv "$e" "moved-$n" && ln -s ' +
        outside +
        ' "$e"; fi',
      '  done',
      'done',
    ].join('\n');
    const planter = spawn('/bin/sh', ['-c', script], {
      cwd: isoDir,
      uid: daemon.uid,
      gid: daemon.gid,
      stdio: 'ignore',
    });
    const image: IsoImage = {
      volume: 'cfg',
      isoPath: join(isoDir, 'cfg.iso'),
      label: 'cfgdata',
      files: [{ path: 'user-data', content: Buffer.from('#cloud-config\n') }],
    };
    try {
      for (let i = 0; i < 5; i++) await write(image, daemon).catch(() => undefined);
    } finally {
      planter.kill('SIGKILL');
      await new Promise((resolve) => planter.once('close', resolve));
    }
    expect(before()).toEqual(want);
    expect(readdirSync(outside)).toEqual(['precious']);
    const iso = lstatSync(image.isoPath, { throwIfNoEntry: false });
    if (iso !== undefined && !iso.isSymbolicLink()) {
      expect([iso.isFile(), iso.uid, iso.mode & 0o777]).toEqual([true, daemon.uid, 0o600]);
      expect(await isoContents(image.isoPath)).toEqual({ 'user-data': '#cloud-config\n' });
    }
  }, 60_000);
});
