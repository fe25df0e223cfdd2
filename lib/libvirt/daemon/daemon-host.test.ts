import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupId, kvmModeFix } from './kvm-device.ts';
import { libvirtLayout } from './layout.ts';
import { qemuPids } from './qemu-pids.ts';

describe('groupId', () => {
  const group = 'root:x:0:\nkvm:x:108:libvirt-qemu\nkvmx:x:200:\n';
  it.each([
    ['kvm', 108],
    ['root', 0],
    ['nobody', undefined],
  ])('%s', (name, want) => {
    expect(groupId(group, name)).toBe(want);
  });
});

describe('kvmModeFix', () => {
  it.each([
    ['root:root 0600', { gid: 0, mode: 0o020600 }, 0o660],
    ['kvm 0600', { gid: 108, mode: 0o020600 }, 0o660],
    ['root 0660', { gid: 0, mode: 0o020660 }, 0o660],
    ['kvm 0660', { gid: 108, mode: 0o020660 }, undefined],
    ['kvm 0666', { gid: 108, mode: 0o020666 }, undefined],
  ])('%s', (_, st, want) => {
    expect(kvmModeFix(st, 108)).toBe(want);
  });
});

describe('qemuPids', () => {
  const root = mkdtempSync(join(tmpdir(), 'kvq-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads the domains and the capability probes, skipping what is not a pid', async () => {
    const l = libvirtLayout(root);
    expect(await qemuPids(l)).toEqual([]);
    mkdirSync(l.qemuRunDir, { recursive: true });
    writeFileSync(join(l.qemuRunDir, 'vm1.pid'), '4242\n');
    writeFileSync(join(l.qemuRunDir, 'vm1.xml'), '<domstatus/>');
    writeFileSync(join(l.qemuRunDir, 'bad.pid'), 'x');
    const probes = join(l.config, 'libvirt', 'qemu', 'lib');
    mkdirSync(join(probes, 'qmp-abc'), { recursive: true });
    mkdirSync(join(probes, 'qmp-gone'), { recursive: true });
    mkdirSync(join(probes, 'channel'), { recursive: true });
    writeFileSync(join(probes, 'qmp-abc', 'qmp.pid'), '777');
    expect((await qemuPids(l)).sort((a, b) => a - b)).toEqual([777, 4242]);
  });
});
