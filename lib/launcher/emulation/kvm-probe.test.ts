import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KVM_PROBE_IMAGE } from './kvm-probe.ts';

describe('KVM_PROBE_IMAGE', () => {
  it('is kvm-probe.S assembled (binutils: as, ld)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kv-probe-build-'));
    try {
      const src = fileURLToPath(new URL('./kvm-probe.S', import.meta.url));
      execFileSync('as', ['--32', '-o', join(dir, 'p.o'), src]);
      execFileSync('ld', [
        '-m',
        'elf_i386',
        '-Ttext=0x100000',
        '--oformat',
        'binary',
        '-o',
        join(dir, 'p.bin'),
        join(dir, 'p.o'),
      ]);
      expect(readFileSync(join(dir, 'p.bin')).equals(KVM_PROBE_IMAGE)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts with a multiboot header whose checksum adds up to zero', () => {
    const magic = KVM_PROBE_IMAGE.readUInt32LE(0);
    const flags = KVM_PROBE_IMAGE.readUInt32LE(4);
    const sum = KVM_PROBE_IMAGE.readUInt32LE(8);
    expect(magic).toBe(0x1badb002);
    expect((magic + flags + sum) % 2 ** 32).toBe(0);
  });
});
