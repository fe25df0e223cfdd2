import { describe, expect, it } from '@jest/globals';
import { POD_LAYOUT, podLayout } from '../../rpc/index.ts';
import { destinationUris, retargetXml } from './uris.ts';

describe('destinationUris', () => {
  it('reaches the target libvirt, QEMU and its NBD server through the proxy sockets KubeVirt names', () => {
    expect(destinationUris(POD_LAYOUT, 'u1')).toEqual({
      dconnuri: 'qemu+unix:///session?socket=/var/run/kubevirt/migrationproxy/u1-source.sock',
      migrateUri: 'unix:///var/run/kubevirt/migrationproxy/u1-49152-source.sock',
      disksUri: 'unix:///var/run/kubevirt/migrationproxy/u1-49153-source.sock',
    });
    expect(destinationUris(podLayout('/tmp/a'), 'u1').dconnuri).toBe(
      'qemu+unix:///session?socket=/tmp/a/var/run/kubevirt/migrationproxy/u1-source.sock',
    );
  });
});

describe('retargetXml', () => {
  const xml = "<kernel>/tmp/a/k</kernel><source path='/tmp/a/var/s'/><x>/tmp/ab/keep</x>";
  it.each<[string, string, string | undefined, string]>([
    ['no target root: unchanged', '/tmp/a', undefined, xml],
    ['same root: unchanged', '/tmp/a', '/tmp/a', xml],
    ['a Pod root: unchanged', '/', '/', xml],
    [
      'another root: paths below the source root move',
      '/tmp/a',
      '/tmp/b',
      "<kernel>/tmp/b/k</kernel><source path='/tmp/b/var/s'/><x>/tmp/ab/keep</x>",
    ],
  ])('%s', (_n, from, to, want) => {
    expect(retargetXml(xml, from, to)).toBe(want);
  });
});
