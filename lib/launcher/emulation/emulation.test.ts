import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { decideEmulation, kvmEmulator, type KvmFacts } from './emulation.ts';
import { judgeProbe } from './kvm-probe.ts';

const domcaps = (f: string): string =>
  readFileSync(new URL(`../node-labeller/testdata/${f}`, import.meta.url), 'utf8');

const okProbe = { ok: true, reason: 'ok', elapsedMs: 80 };
const badProbe = { ok: false, reason: 'qemu exited on a signal', elapsedMs: 40 };
const offered = (probe?: typeof okProbe): KvmFacts => ({
  libvirtOffersKvm: true,
  libvirtReason: 'ok',
  ...(probe !== undefined && { probe }),
});

describe('decideEmulation', () => {
  it.each<[string, 'auto' | 'on' | 'off', KvmFacts | undefined, boolean]>([
    ['on forces TCG even with a working KVM', 'on', offered(okProbe), true],
    ['off forces KVM without asking', 'off', undefined, false],
    ['auto: KVM when the probe guest ran', 'auto', offered(okProbe), false],
    ['auto: TCG when the probe failed', 'auto', offered(badProbe), true],
    [
      'auto: TCG when libvirt offers no KVM',
      'auto',
      { libvirtOffersKvm: false, libvirtReason: 'no kvm' },
      true,
    ],
    ['auto: TCG when nothing was probed', 'auto', offered(), true],
  ])('%s', (_what, mode, facts, emulation) => {
    const d = decideEmulation(mode, facts);
    expect(d.emulation).toBe(emulation);
    expect(d.reason).not.toBe('');
  });

  it('names the probe failure', () => {
    expect(decideEmulation('auto', offered(badProbe)).reason).toContain('qemu exited on a signal');
  });
});

describe('kvmEmulator', () => {
  it('finds the emulator in real kvm domain capabilities', () => {
    expect(kvmEmulator(domcaps('domcaps-kvm.xml'))).toEqual({
      emulator: '/usr/bin/qemu-system-x86_64',
      reason: 'ok',
    });
  });

  it('finds the emulator when an attribute value of its element holds a ">"', () => {
    const xml = domcaps('domcaps-kvm.xml').replace('<path>', '<path note="x>y">');
    expect(xml).toContain('<path note="x>y">');
    expect(kvmEmulator(xml)).toEqual({ emulator: '/usr/bin/qemu-system-x86_64', reason: 'ok' });
  });

  it('refuses capabilities of another virt type', () => {
    expect(kvmEmulator(domcaps('domcaps-qemu.xml')).emulator).toBeUndefined();
  });
});

describe('judgeProbe', () => {
  const run = { exitCode: 67, serial: 'SeaBIOS...PLK', stderr: '', timedOut: false, timeoutMs: 5000 };
  it.each([
    ['the guest reached the end', run, true, 'ok'],
    [
      'QEMU aborted on an MSR',
      { ...run, exitCode: null, serial: '', stderr: 'qemu: error: failed to set MSR 0x10a\n' },
      false,
      'failed to set MSR',
    ],
    [
      'the guest was too slow',
      { ...run, exitCode: null, serial: 'PL', timedOut: true },
      false,
      'within 5000 ms',
    ],
    ['a wrong exit status', { ...run, exitCode: 1 }, false, 'exited 1'],
  ])('%s', (_what, r, ok, reason) => {
    const j = judgeProbe(r);
    expect(j.ok).toBe(ok);
    expect(j.reason).toContain(reason);
  });
});
