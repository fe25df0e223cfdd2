import { describe, expect, it } from '@jest/globals';
import { rpcPaths } from './paths.ts';

describe('rpcPaths', () => {
  it.each([
    ['/', '/var/run/kubevirt/sockets/launcher-sock', '/var/run/kubevirt/domain-notify.sock'],
    [
      '/tmp/r1',
      '/tmp/r1/var/run/kubevirt/sockets/launcher-sock',
      '/tmp/r1/var/run/kubevirt/domain-notify.sock',
    ],
    [
      '/tmp/r2/',
      '/tmp/r2/var/run/kubevirt/sockets/launcher-sock',
      '/tmp/r2/var/run/kubevirt/domain-notify.sock',
    ],
  ])('root %s', (root, launcher, notify) => {
    const p = rpcPaths(root);
    expect(p.launcherSocket).toBe(launcher);
    expect(p.notifySocket).toBe(notify);
    expect(p.launcherInitSocket).toBe(launcher.replace('launcher-sock', 'launcher-init-sock'));
  });

  it('puts per-VMI files in the private dir under the root', () => {
    const p = rpcPaths('/r');
    const uid = '5b1c2f3e-0d9a-4b8c-9e7f-1a2b3c4d5e6f';
    expect(p.vmiPrivateDir(uid)).toBe(`/r/var/run/kubevirt-private/${uid}`);
    expect(p.serialSocket(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-serial0`);
    expect(p.serialLog(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-serial0-log`);
    expect(p.vncSocket(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-vnc`);
  });

  it.each(['', '..', '../etc', 'a/b', '.hidden', 'a..b'])('rejects the uid %j', (uid) => {
    expect(() => rpcPaths('/r').serialSocket(uid)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
  });

  it.each(['', 'relative/root', './x'])('rejects the non-absolute root %j', (root) => {
    expect(() => rpcPaths(root)).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });
});
