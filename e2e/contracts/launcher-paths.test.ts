/**
 * The path contract between two roles: every /var/run path the launcher's converter puts in a domain (disk
 * images, overlays, ISOs, kernel-boot artifacts, sockets) lies under a mount of the compute container the
 * controller renders for the same VMI. A change on one side alone fails here.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../lib/api/index.ts';
import { vmi as vmiFixture } from '../../lib/controller/testing/fixtures.ts';
import { newLauncherPod } from '../../lib/controller/vmi/launcher-pod.ts';
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
      { name: 'ci', cloudInitNoCloud: { userData: '#cloud-config\n' } },
    ];
  });
}

function mountPaths(vmi: VirtualMachineInstance): string[] {
  const pod = newLauncherPod(vmi, { image: 'reg/virt:1' });
  const compute = pod.spec.containers.find((c) => c.name === 'compute');
  return (compute?.volumeMounts ?? []).map((m) => String(m['mountPath']));
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
    const mounts = mountPaths(vmi);
    const outside = paths.filter((p) => !mounts.some((m) => p.startsWith(`${m}/`)));
    expect(outside).toEqual([]);
  });
});
