import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withVolume } from '../../kubevirt/testing/builders.ts';
import { testVmi } from '../converter/testing/vmi.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import {
  containerDiskFormats,
  formatOfHeader,
  formatOfInfo,
  PRLIMIT,
  qemuImgInfoArgs,
  QEMU_IMG,
  QEMU_IMG_ADDRESS_SPACE_BYTES,
} from './image-format.ts';

/** A qcow2 header: version, backing file offset, incompatible features (v3). */
function qcow2(version: number, backingOffset = 0n, incompatible = 0n): Buffer {
  const b = Buffer.alloc(512);
  b.write('QFI\xfb', 0, 'latin1');
  b.writeUInt32BE(version, 4);
  b.writeBigUInt64BE(backingOffset, 8);
  b.writeBigUInt64BE(incompatible, 72);
  return b;
}
const at = (offset: number, text: string): Buffer => {
  const b = Buffer.alloc(512);
  b.write(text, offset, 'latin1');
  return b;
};

describe('formatOfHeader', () => {
  const vdi = Buffer.alloc(512);
  vdi.writeUInt32LE(0xbeda107f, 0x40);
  it.each<[string, Buffer, unknown]>([
    ['qcow2 v3', qcow2(3), 'qcow2'],
    ['qcow2 v2', qcow2(2), 'qcow2'],
    ['qcow2 v3, dirty and with extended L2 entries', qcow2(3, 0n, 1n | 16n), 'qcow2'],
    ['a backing file', qcow2(3, 0x70n), { problem: 'the image names a backing file, which is not allowed' }],
    [
      'an external data file',
      qcow2(3, 0n, 4n),
      { problem: 'the image names an external data file, which is not allowed' },
    ],
    ['qcow (v1)', qcow2(1), { problem: 'image format "qcow" is not supported (raw or qcow2)' }],
    ['qcow2 v4', qcow2(4), { problem: 'qcow2 version 4 is not supported' }],
    ['a cut qcow2 header', qcow2(3).subarray(0, 40), { problem: 'the qcow2 header is cut short' }],
    ['vmdk', at(0, 'KDMV'), { problem: 'image format "vmdk" is not supported (raw or qcow2)' }],
    ['a vmdk descriptor', at(0, '# Disk DescriptorFile\n'), { problem: expect.stringContaining('"vmdk"') }],
    ['vhdx', at(0, 'vhdxfile'), { problem: expect.stringContaining('"vhdx"') }],
    ['vdi', vdi, { problem: expect.stringContaining('"vdi"') }],
    ['luks', at(0, 'LUKS\xba\xbe'), { problem: expect.stringContaining('"luks"') }],
    ['a disk with a boot sector', at(510, '\x55\xaa'), 'raw'],
    ['zeros', Buffer.alloc(512), 'raw'],
    ['an empty file', Buffer.alloc(0), 'raw'],
  ])('%s', (_n, head, want) => {
    expect(formatOfHeader(head)).toEqual(want);
  });
});

describe('formatOfInfo (qemu-img info --output=json -f …)', () => {
  it.each<[string, string, 'raw' | 'qcow2', unknown]>([
    ['qcow2', '{"format":"qcow2","virtual-size":16777216}', 'qcow2', 'qcow2'],
    ['raw', '{"format":"raw","virtual-size":1024}', 'raw', 'raw'],
    [
      'another format than named',
      '{"format":"raw"}',
      'qcow2',
      { problem: 'qemu-img info reads the image as "raw", not qcow2' },
    ],
    [
      'a backing file',
      '{"format":"qcow2","backing-filename":"/etc/shadow"}',
      'qcow2',
      { problem: 'the image names a backing file, which is not allowed' },
    ],
    [
      'a data file',
      '{"format":"qcow2","format-specific":{"type":"qcow2","data":{"data-file":"/dev/sda"}}}',
      'qcow2',
      { problem: 'the image names an external data file, which is not allowed' },
    ],
    ['not JSON', 'qemu-img: error', 'raw', { problem: 'qemu-img info gave no JSON' }],
  ])('%s', (_n, json, expected, want) => {
    expect(formatOfInfo(json, expected)).toEqual(want);
  });
});

describe('qemuImgInfoArgs', () => {
  it('names the format and runs under KubeVirt limits', () => {
    expect([PRLIMIT, ...qemuImgInfoArgs('/i/disk.img', 'qcow2')]).toEqual([
      ...['/usr/bin/prlimit', '--cpu=10', `--as=${2000 * 1024 * 1024}`, '--'],
      ...[QEMU_IMG, 'info', '--output=json', '-U', '-f', 'qcow2', '/i/disk.img'],
    ]);
    expect(QEMU_IMG_ADDRESS_SPACE_BYTES).toBe(2097152000);
  });
});

describe('containerDiskFormats (real images, qemu-img info)', () => {
  const daemon: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
  let dir = '';
  const img = (name: string, ...args: string[]): string => {
    const p = join(dir, name);
    execFileSync(QEMU_IMG, ['create', '-q', ...args.map((a) => a.replace('@', dir + '/')), p, '1M']);
    chmodSync(p, 0o644);
    return p;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kv-image-format-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'target.raw'), '');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const formats = (file: string, known = new Map<string, 'raw' | 'qcow2'>()): Promise<Map<string, string>> =>
    containerDiskFormats(
      testVmi(withVolume({ name: 'cd', containerDisk: { image: 'reg/x:1' } })),
      new Map([['cd', file]]),
      { known, identity: daemon },
    );

  it.each([
    ['a qcow2 image', (): string => img('plain.qcow2', '-f', 'qcow2'), 'qcow2'],
    ['a raw image', (): string => img('plain.raw', '-f', 'raw'), 'raw'],
  ])('takes %s', async (_what, make, want) => {
    expect((await formats(make(), new Map())).get('cd')).toBe(want);
  });

  it.each([
    [
      'a qcow2 image with an external data file',
      (): string => img('data.qcow2', '-f', 'qcow2', '-o', 'data_file=@target.raw'),
      'spec.volumes[0].containerDisk: the image names an external data file, which is not allowed',
    ],
    [
      'a qcow2 image with a backing file',
      (): string => img('backed.qcow2', '-f', 'qcow2', '-F', 'raw', '-b', '@target.raw'),
      'spec.volumes[0].containerDisk: the image names a backing file, which is not allowed',
    ],
    [
      'a vmdk image',
      (): string => img('disk.vmdk', '-f', 'vmdk'),
      'spec.volumes[0].containerDisk: image format "vmdk" is not supported (raw or qcow2)',
    ],
  ])('refuses %s, even when the handler named its format', async (_what, make, message) => {
    const file = make();
    await expect(formats(file)).rejects.toMatchObject({ code: 'KV_ERR_CONFIG', message });
    await expect(formats(file, new Map([['cd', 'qcow2']]))).rejects.toMatchObject({ message });
  });
});
