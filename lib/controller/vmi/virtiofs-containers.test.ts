import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { vmi } from '../../kubevirt/testing/objects.ts';
import { virtiofsContainers } from './virtiofs-containers.ts';

type Spec = VirtualMachineInstance['spec'];
const OPTS = { image: 'registry.example/virt:1', binary: '/usr/libexec/virtiofsd' };

function vmiSharing(volumes: Volume[], patch: (s: Spec) => void = () => undefined): VirtualMachineInstance {
  return vmi((v) => {
    v.spec.volumes = volumes;
    v.spec.domain.devices.filesystems = volumes.map((vol) => ({ name: vol.name, virtiofs: {} }));
    patch(v.spec);
  });
}

describe('virtiofsContainers', () => {
  it.each<[string, Volume, string, boolean]>([
    ['a claim at /<volume>', { name: 'data', persistentVolumeClaim: { claimName: 'c' } }, '/data', true],
    [
      'a config map where the compute container has it',
      { name: 'cfg', configMap: { name: 'm' } },
      '/var/run/kubevirt-private/config-map/cfg',
      true,
    ],
    [
      'a secret likewise',
      { name: 'sec', secret: { secretName: 's' } },
      '/var/run/kubevirt-private/secret/sec',
      true,
    ],
    [
      'downward API likewise',
      { name: 'meta', downwardAPI: { fields: [] } },
      '/var/run/kubevirt-private/downwardapi/meta',
      true,
    ],
    [
      'the service account token where the Pod mounts it, with no mount of its own',
      { name: 'sa', serviceAccount: { serviceAccountName: 'robot' } },
      '/var/run/secrets/kubernetes.io/serviceaccount/',
      false,
    ],
  ])('shares %s', (_n, volume, dir, ownMount) => {
    const [c] = virtiofsContainers(vmiSharing([volume]), OPTS);
    expect(c?.name).toBe(`virtiofs-${volume.name}`);
    expect(c?.command).toEqual(['/usr/libexec/virtiofsd']);
    expect(c?.args?.slice(0, 2)).toEqual([
      `--socket-path=/var/run/kubevirt/virtiofs-containers/${volume.name}.sock`,
      `--shared-dir=${dir}`,
    ]);
    expect(c?.volumeMounts).toEqual([
      { name: 'virtiofs-containers', mountPath: '/var/run/kubevirt/virtiofs-containers' },
      ...(ownMount ? [{ name: volume.name, mountPath: dir }] : []),
    ]);
  });

  it.each<[string, (s: Spec) => void, Record<string, string>]>([
    ['burstable by default', () => undefined, { cpu: '10m', memory: '1M' }],
    [
      'dedicated CPUs: the CPU request at the limit',
      (s) => (s.domain.cpu = { cores: 1, dedicatedCpuPlacement: true }),
      { cpu: '100m', memory: '80M' },
    ],
    [
      'Guaranteed QoS: CPU and memory requests at the limits',
      (s) =>
        (s.domain.resources = {
          requests: { cpu: '1', memory: '1Gi' },
          limits: { cpu: '1', memory: '1Gi' },
        }),
      { cpu: '100m', memory: '80M' },
    ],
  ])('requests: %s', (_n, patch, requests) => {
    const [c] = virtiofsContainers(vmiSharing([{ name: 'd', emptyDisk: { capacity: '1Gi' } }], patch), OPTS);
    expect(c?.resources).toEqual({ requests, limits: { memory: '80M', cpu: '100m' } });
  });

  it('one container per shared volume, in spec.volumes order; none for other volumes', () => {
    const v = vmiSharing([
      { name: 'b', persistentVolumeClaim: { claimName: 'b' } },
      { name: 'a', persistentVolumeClaim: { claimName: 'a' } },
    ]);
    v.spec.volumes?.push({ name: 'disk', persistentVolumeClaim: { claimName: 'disk' } });
    v.spec.domain.devices.filesystems?.reverse();
    expect(virtiofsContainers(v, OPTS).map((c) => c.name)).toEqual(['virtiofs-b', 'virtiofs-a']);
  });

  it('runs unprivileged as uid 107 with every capability dropped', () => {
    const [c] = virtiofsContainers(
      vmiSharing([{ name: 'd', persistentVolumeClaim: { claimName: 'd' } }]),
      OPTS,
    );
    expect(c?.securityContext).toEqual({
      runAsUser: 107,
      runAsGroup: 107,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });
});
