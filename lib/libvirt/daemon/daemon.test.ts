import { describe, expect, it } from '@jest/globals';
import { passwdEntry } from './identity.ts';
import { AGENT_SOCKET_SUFFIX_BYTES, libvirtLayout } from './layout.ts';

describe('passwdEntry', () => {
  const passwd =
    'root:x:0:0:root:/root:/bin/bash\nlibvirt-qemu:x:64055:108:Libvirt Qemu,,,:/var/lib/libvirt:/usr/sbin/nologin\n';
  it.each([
    ['libvirt-qemu', { uid: 64055, gid: 108, name: 'libvirt-qemu' }],
    ['root', { uid: 0, gid: 0, name: 'root' }],
    ['nobody', undefined],
  ])('%s', (name, want) => {
    expect(passwdEntry(passwd, name)).toEqual(want);
  });
});

describe('libvirtLayout', () => {
  it('keeps every path under the root', () => {
    const l = libvirtLayout('/tmp/kvl-abcdef/');
    for (const p of Object.values(l) as string[]) expect(p.startsWith('/tmp/kvl-abcdef/')).toBe(true);
    expect(l.socketPath).toBe('/tmp/kvl-abcdef/var/run/libvirt/libvirt/libvirt-sock');
  });

  it('leaves a test root room for the guest agent socket (107 bytes)', () => {
    expect(libvirtLayout('/tmp/kvl-abcdef').config.length + AGENT_SOCKET_SUFFIX_BYTES).toBeLessThanOrEqual(
      107,
    );
  });

  it('puts swtpm where a session libvirt and swtpm_setup do, below the Pod directories', () => {
    const l = libvirtLayout('/');
    expect([l.swtpmStorageDir, l.swtpmLogDir, l.swtpmRunDir, l.swtpmLocalCaDir]).toEqual([
      '/lv/libvirt/qemu/swtpm',
      '/var/run/libvirt/cache/libvirt/qemu/log',
      '/var/run/libvirt/libvirt/qemu/run/swtpm',
      '/lv/var/lib/swtpm-localca',
    ]);
  });

  it("leaves a test root room for swtpm's socket (libvirt names it after the domain's short name)", () => {
    const sock = `${libvirtLayout('/tmp/kvl-abcdef').swtpmRunDir}/999-12345678901234567890-swtpm.sock`;
    expect(sock.length).toBeLessThanOrEqual(107);
  });
});
