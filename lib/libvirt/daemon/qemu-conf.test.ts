import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findHugetlbfs, qemuConf } from './qemu-conf.ts';

describe('qemuConf', () => {
  it.each<[string, string | undefined, string]>([
    ['no hugetlbfs: libvirt defaults only', undefined, '# Written by the launcher on each start.\n'],
    [
      'the hugepages mount',
      '/dev/hugepages',
      '# Written by the launcher on each start.\nhugetlbfs_mount = "/dev/hugepages"\n',
    ],
    [
      'a path that needs quoting',
      '/tmp/kv "x"/dev/hugepages',
      '# Written by the launcher on each start.\nhugetlbfs_mount = "/tmp/kv \\"x\\"/dev/hugepages"\n',
    ],
  ])('%s', (_n, hugetlbfs, want) => {
    expect(qemuConf({ hugetlbfs })).toBe(want);
  });
});

describe('findHugetlbfs', () => {
  const errno = (code: string): Error => Object.assign(new Error(code), { code });

  it.each<[string, () => Promise<{ type: number }>, string | undefined]>([
    ['a hugetlbfs', () => Promise.resolve({ type: 0x958458f6 }), '/r/dev/hugepages'],
    ['a tmpfs (not for libvirt)', () => Promise.resolve({ type: 0x01021994 }), undefined],
    ['nothing there', () => Promise.reject(errno('ENOENT')), undefined],
  ])('%s', async (_n, stat, want) => {
    await expect(findHugetlbfs('/r', stat)).resolves.toBe(want);
  });

  it('passes on any other failure', async () => {
    await expect(findHugetlbfs('/r', () => Promise.reject(errno('EACCES')))).rejects.toThrow('EACCES');
  });

  describe('on this host (no hugepages mounted under a new root)', () => {
    let root = '';
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'kv-qemu-conf-'));
    });
    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('finds none where there is no directory, nor in a plain one', async () => {
      await expect(findHugetlbfs(root)).resolves.toBeUndefined();
      await mkdir(join(root, 'dev/hugepages'), { recursive: true });
      await expect(findHugetlbfs(root)).resolves.toBeUndefined();
    });
  });
});
