/**
 * The path contract between two roles: every /var/run path the launcher's converter puts in a domain (disk
 * images, overlays, ISOs, kernel-boot artifacts, sockets) lies under a mount of the compute container the
 * controller renders for the same VMI. A change on one side alone fails here.
 */
import { describe, expect, it } from '@jest/globals';
import type { VolumeMount as Mount } from '../../lib/kubevirt/core/pod.ts';
import type { VirtualMachineInstance } from '../../lib/kubevirt/index.ts';
import { vmi as vmiFixture } from '../../lib/kubevirt/testing/objects.ts';
import { newLauncherPod } from '../../lib/controller/vmi/launcher-pod.ts';
import { configDiskImages, diskFiles, type SourceFs } from '../../lib/launcher/configdisk/index.ts';
import { converterContext, domainXml, toDomain } from '../../lib/launcher/converter/index.ts';

function contractVmi(): VirtualMachineInstance {
  return vmiFixture((v) => {
    v.spec.domain.firmware = {
      kernelBoot: {
        kernelArgs: 'console=ttyS0',
        container: { image: 'k:1', kernelPath: '/boot/vmlinuz', initrdPath: 'initrd.img' },
      },
    };
    v.spec.domain.devices = {
      disks: ['root', 'data', 'scratch', 'cfg', 'sec', 'ci'].map((name) => ({
        name,
        disk: { bus: 'virtio' },
      })),
    };
    v.spec.volumes = [
      { name: 'root', containerDisk: { image: 'reg/root:1' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc' } },
      { name: 'scratch', emptyDisk: { capacity: '1Gi' } },
      { name: 'cfg', configMap: { name: 'app-config' } },
      { name: 'sec', secret: { secretName: 'app-secret' } },
      {
        name: 'ci',
        cloudInitNoCloud: { secretRef: { name: 'ci-user' }, networkDataSecretRef: { name: 'ci-net' } },
      },
    ];
    v.spec.accessCredentials = [
      { sshPublicKey: { source: { secret: { secretName: 'keys' } }, propagationMethod: { noCloud: {} } } },
    ];
  });
}

interface Asked {
  kind: 'dir' | 'file';
  path: string;
}

/** A filesystem where the files the launcher looks for exist; it records every path asked about. */
function recordingFs(asked: Asked[]): SourceFs {
  const note = (kind: Asked['kind'], path: string): string => (asked.push({ kind, path }), path);
  const dataFile = /\/(user|network)[Dd]ata$/;
  return {
    list: (dir) => (note('dir', dir), ['key']),
    isFile: (p) => !dataFile.test(note('file', p)) || /\/(userdata|networkdata)$/.test(p),
    read: (p) => (note('file', p), Buffer.from('ssh-ed25519 AAAA test\n')),
  };
}

/** The launcher Pod's scratch directories: the launcher writes there, nothing else puts files in them. */
const SCRATCH = new Set([
  'private',
  'public',
  'sockets',
  'libvirt-runtime',
  'ephemeral-disks',
  'hotplug-disks',
]);

function mountsOf(vmi: VirtualMachineInstance): Mount[] {
  const pod = newLauncherPod(vmi, { image: 'reg/virt:1' });
  const compute = pod.spec.containers.find((c) => c.name === 'compute');
  return compute?.volumeMounts ?? [];
}

/** The innermost mount holding path (the mount itself, or a directory mount above it). */
function innermost(mounts: readonly Mount[], path: string): Mount | undefined {
  const holding = mounts.filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
  return holding.sort((x, y) => y.mountPath.length - x.mountPath.length)[0];
}

/**
 * Whether the Pod provides what the launcher asks for: a file it reads is a file mount (subPath) or lies in a
 * directory mount, a directory is a directory mount; and it comes from a volume, not a scratch directory.
 */
function provided(mounts: readonly Mount[], a: Asked): boolean {
  const m = innermost(mounts, a.path);
  if (m === undefined || SCRATCH.has(m.name)) return false;
  return a.path === m.mountPath ? (a.kind === 'file') === (m.subPath !== undefined) : m.subPath === undefined;
}

describe('launcher paths lie under the launcher Pod mounts', () => {
  it('for disks of every source, kernel boot and sockets', () => {
    const vmi = contractVmi();
    const xml = domainXml(toDomain(vmi, converterContext({ root: '/', arch: 'amd64', emulation: true })));
    const paths = [...xml.matchAll(/["'>](\/var\/run\/[^"'<]+)/g)].map((m) => m[1] ?? '');
    expect(paths).toEqual(
      expect.arrayContaining([
        '/var/run/kubevirt-kernel-boot/boot/vmlinuz',
        '/var/run/kubevirt-image-volume/disk_0/disk/disk.img',
      ]),
    );
    const mounts = mountsOf(vmi);
    const outside = paths.filter((p) => innermost(mounts, p) === undefined);
    expect(outside).toEqual([]);
  });

  it('for the files the launcher builds config-disk ISOs from', () => {
    const vmi = contractVmi();
    const ctx = converterContext({ root: '/', arch: 'amd64', emulation: true });
    const asked: Asked[] = [];
    const disks = toDomain(vmi, ctx).devices.disks;
    const images = configDiskImages({ vmi, ctx, diskFiles: diskFiles(disks), fs: recordingFs(asked) });
    expect(images.map((i) => i.label).sort()).toEqual(['cfgdata', 'cfgdata', 'cidata']);
    expect(asked.map((a) => a.path)).toEqual(
      expect.arrayContaining([
        '/var/run/kubevirt-private/secret/ci/userdata',
        '/var/run/kubevirt-private/secret/ci/networkdata',
        '/var/run/kubevirt-private/secret/keys-access-cred',
        '/var/run/kubevirt-private/config-map/cfg',
      ]),
    );
    const mounts = mountsOf(vmi);
    expect(asked.filter((a) => !provided(mounts, a))).toEqual([]);
  });
});
