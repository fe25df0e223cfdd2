// Runs the real xorrisofs (scripts/install.sh installs xorriso) in a temp directory.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Identity } from '../daemon/process.ts';
import { writeIso, xorrisofsArgs } from './iso.ts';
import { isoContents, isoVolumeId } from './testing/fs.ts';

const SELF: Identity = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, name: 'self' };
let dir: string;

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
    await writeIso(
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
    await expect(writeIso(image, SELF)).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `cannot write the ISO image ${iso} of volume sec`,
    });
    expect(readdirSync(dir)).toEqual(['secret.iso']);
    expect(statSync(iso).size).toBe('the previous image'.length);
  });
});
