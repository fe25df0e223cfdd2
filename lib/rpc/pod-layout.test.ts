import { describe, expect, it } from '@jest/globals';
import { launcherOnNode, launcherSocketOnNode, POD_LAYOUT, podLayout, podPathText } from './pod-layout.ts';

describe('podLayout', () => {
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
    const p = podLayout(root);
    expect(p.launcherSocket).toBe(launcher);
    expect(p.notifySocket).toBe(notify);
    expect(p.launcherInitSocket).toBe(launcher.replace('launcher-sock', 'launcher-init-sock'));
  });

  it('puts per-VMI files in the private dir under the root', () => {
    const p = podLayout('/r');
    const uid = '5b1c2f3e-0d9a-4b8c-9e7f-1a2b3c4d5e6f';
    expect(p.vmiPrivateDir(uid)).toBe(`/r/var/run/kubevirt-private/${uid}`);
    expect(p.serialSocket(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-serial0`);
    expect(p.serialLog(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-serial0-log`);
    expect(p.vncSocket(uid)).toBe(`/r/var/run/kubevirt-private/${uid}/virt-vnc`);
  });

  it.each(['', '..', '../etc', 'a/b', '.hidden', 'a..b'])('rejects the uid %j', (uid) => {
    expect(() => podLayout('/r').migrationSocket(uid, 0)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
    expect(() => podLayout('/r').serialSocket(uid)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
  });

  it.each(['', 'relative/root', './x'])('rejects the non-absolute root %j', (root) => {
    expect(() => podLayout(root)).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });

  it('gives the in-Pod paths the controller mounts, for the root /', () => {
    expect(POD_LAYOUT).toMatchObject({
      privateDir: '/var/run/kubevirt-private',
      shareDir: '/var/run/kubevirt',
      socketsDir: '/var/run/kubevirt/sockets',
      libvirtRuntimeDir: '/var/run/libvirt',
      ephemeralDiskDir: '/var/run/kubevirt-ephemeral-disks',
      hotplugDiskDir: '/var/run/kubevirt/hotplug-disks',
      imageVolumeDir: '/var/run/kubevirt-image-volume',
      kernelBootDir: '/var/run/kubevirt-kernel-boot',
      emptyDiskDir: '/var/run/libvirt/empty-disks',
      devDir: '/dev',
      vmiDisksDir: '/var/run/kubevirt-private/vmi-disks',
      nvramDir: '/var/run/kubevirt-private/libvirt/qemu/nvram',
      prHelperSocket: '/var/run/kubevirt/daemons/pr/pr-helper.sock',
      downwardMetricsSocket: '/var/run/kubevirt-private/downwardmetrics-channel/downwardmetrics.sock',
    });
    expect(POD_LAYOUT.containerDiskDir(3)).toBe('/var/run/kubevirt-image-volume/disk_3');
    expect(POD_LAYOUT.configVolumeDir('config-map', 'app')).toBe('/var/run/kubevirt-private/config-map/app');
  });

  it('puts every path under the root', () => {
    const l = podLayout('/tmp/r');
    const paths = Object.values(l).filter((v): v is string => typeof v === 'string');
    expect(paths.length).toBeGreaterThan(10);
    for (const p of paths) expect(p.startsWith('/tmp/r')).toBe(true);
    expect(l.containerDiskDir(0)).toBe('/tmp/r/var/run/kubevirt-image-volume/disk_0');
  });

  it('finds a launcher socket in its Pod sockets emptyDir under the kubelet pods directory', () => {
    expect(launcherSocketOnNode('/var/lib/kubelet/pods', '6f2c1c1e-0000-4000-8000-000000000001')).toBe(
      '/var/lib/kubelet/pods/6f2c1c1e-0000-4000-8000-000000000001/volumes/kubernetes.io~empty-dir/sockets/launcher-sock',
    );
    expect(() => launcherSocketOnNode('/p', '../x')).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
  });

  it('names each socket by its emptyDir, made by the kubelet, and the tenant-written names below it', () => {
    const n = launcherOnNode('/pods', 'p1');
    const volume = (v: string): string => `/pods/p1/volumes/kubernetes.io~empty-dir/${v}`;
    expect(n.podUid).toBe('p1');
    expect(n.serialSocket('u1')).toEqual({ root: volume('private'), rel: ['u1', 'virt-serial0'] });
    expect(n.vncSocket('u1')).toEqual({ root: volume('private'), rel: ['u1', 'virt-vnc'] });
    expect(n.launcherSocket).toEqual({ root: volume('sockets'), rel: ['launcher-sock'] });
    expect(n.notifySocket).toEqual({ root: volume('public'), rel: ['domain-notify.sock'] });
    expect(podPathText(n.serialSocket('u1'))).toBe(`${volume('private')}/u1/virt-serial0`);
    expect(() => n.serialSocket('../x')).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });

  it.each<[string, number, string]>([
    ['libvirt connection', 0, 'u1-source.sock'],
    ['direct migration', 49152, 'u1-49152-source.sock'],
    ['block migration', 49153, 'u1-49153-source.sock'],
  ])("names the %s socket as KubeVirt's SourceUnixFile does", (_what, port, name) => {
    expect(POD_LAYOUT.migrationSocket('u1', port)).toBe(`/var/run/kubevirt/migrationproxy/${name}`);
    expect(launcherOnNode('/pods', 'p1').migrationSocket('u1', port)).toEqual({
      root: '/pods/p1/volumes/kubernetes.io~empty-dir/public',
      rel: ['migrationproxy', name],
    });
  });

  it.each<[string, number]>([
    ['../x', 0],
    ['u1', -1],
    ['u1', 1.5],
    ['u1', 65536],
  ])('refuses a migration socket for uid %j and port %j', (uid, port) => {
    expect(() => POD_LAYOUT.migrationSocket(uid, port)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG' }),
    );
  });
});
