import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { supportsDirectIo } from './role.ts';

describe('supportsDirectIo', () => {
  let dir = '';
  let outside = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kv-direct-io-'));
    outside = await mkdtemp(join(tmpdir(), 'kv-direct-io-outside-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('probes with a file of its own and leaves nothing behind', async () => {
    expect(typeof (await supportsDirectIo(dir))).toBe('boolean');
    expect(await readdir(dir)).toEqual([]);
  });

  it('creates nothing through a link planted at the probe name', async () => {
    await symlink(join(outside, 'made-by-root'), join(dir, `.direct-io-probe-${process.pid}`));
    await supportsDirectIo(dir);
    expect(await readdir(outside)).toEqual([]);
  });
});
