import { describe, expect, it } from '@jest/globals';
import { formatOfInfo } from './image-format.ts';

describe('formatOfInfo (qemu-img info --output=json)', () => {
  it.each<[string, string, unknown]>([
    ['qcow2', '{"format":"qcow2","virtual-size":16777216}', 'qcow2'],
    ['raw', '{"format":"raw","virtual-size":1024}', 'raw'],
    ['vmdk', '{"format":"vmdk"}', { problem: 'image format "vmdk" is not supported (raw or qcow2)' }],
    ['no format', '{}', { problem: 'image format null is not supported (raw or qcow2)' }],
    [
      'a backing file',
      '{"format":"qcow2","backing-filename":"/etc/shadow"}',
      { problem: 'the image names a backing file, which is not allowed' },
    ],
    ['not JSON', 'qemu-img: error', { problem: 'qemu-img info gave no JSON' }],
  ])('%s', (_n, json, want) => {
    expect(formatOfInfo(json)).toEqual(want);
  });
});
