import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vmi } from '../../kubevirt/testing/objects.ts';
import { KUBEVIRT_OVERHEAD, memoryOverheadBytes, OUR_OVERHEAD, type OverheadOptions } from './overhead.ts';

const Mi = 2 ** 20;
const spec = (patch: (s: VirtualMachineInstance['spec']) => void): VirtualMachineInstance =>
  vmi((v) => {
    v.spec.domain.resources = {};
    patch(v.spec);
  });

const mem = (q: string) => (s: VirtualMachineInstance['spec']) => {
  s.domain.resources = { ...s.domain.resources, requests: { ...s.domain.resources?.requests, memory: q } };
};

describe('memoryOverheadBytes', () => {
  it.each<[string, VirtualMachineInstance, OverheadOptions, number]>([
    // A 1-vCPU VM with VNC carries 268Mi + mem/512 with KubeVirt's constants.
    [
      'KubeVirt constants, 1 vCPU, no memory',
      spec(() => undefined),
      { constants: KUBEVIRT_OVERHEAD },
      268 * Mi,
    ],
    ['ours, 1 vCPU, no memory: 50Mi less', spec(() => undefined), {}, 218 * Mi],
    ['page tables: 1Gi / 512 in whole kB', spec(mem('1Gi')), {}, 218 * Mi + 2_097_000],
    ['4 vCPUs add 8Mi each', spec((s) => (s.domain.cpu = { cores: 2, sockets: 2 })), {}, 242 * Mi],
    [
      'CPU spec without topology counts 1 vCPU',
      spec((s) => (s.domain.cpu = { model: 'host-model' })),
      {},
      218 * Mi,
    ],
    [
      'no CPU spec: vCPUs from the CPU limit',
      spec((s) => (s.domain.resources = { limits: { cpu: '3' } })),
      {},
      234 * Mi,
    ],
    [
      'no graphics: 32Mi less',
      spec((s) => (s.domain.devices.autoattachGraphicsDevice = false)),
      {},
      186 * Mi,
    ],
    ['arm64 pflash', spec((s) => (s.architecture = 'arm64')), {}, 346 * Mi],
    ['arm64 as the cluster default', spec(() => undefined), { defaultArch: 'arm64' }, 346 * Mi],
    [
      'host device: VFIO',
      spec((s) => (s.domain.devices.hostDevices = [{ name: 'h', deviceName: 'x/y' }])),
      {},
      1242 * Mi,
    ],
    ['TPM', spec((s) => (s.domain.devices.tpm = {})), {}, 271 * Mi],
    ['disabled TPM', spec((s) => (s.domain.devices.tpm = { enabled: false })), {}, 218 * Mi],
    ['SEV', spec((s) => (s.domain.launchSecurity = { sev: {} })), {}, 474 * Mi],
    ['downward metrics', spec((s) => (s.volumes = [{ name: 'm', downwardMetrics: {} }])), {}, 219 * Mi],
    [
      'two exec probes',
      spec((s) => {
        s.livenessProbe = { exec: {} };
        s.readinessProbe = { exec: {} };
      }),
      {},
      338 * Mi,
    ],
    [
      'a tcp probe costs nothing',
      spec((s) => (s.readinessProbe = { tcpSocket: { port: 22 } })),
      {},
      218 * Mi,
    ],
    ['dedicated CPUs', spec((s) => (s.domain.cpu = { cores: 1, dedicatedCpuPlacement: true })), {}, 318 * Mi],
    [
      'Guaranteed QoS',
      spec(
        (s) =>
          (s.domain.resources = {
            requests: { cpu: '1', memory: '512Mi' },
            limits: { cpu: '1', memory: '512Mi' },
          }),
      ),
      {},
      318 * Mi + 1_048_000,
    ],
    [
      'ratio 1.5 on whole kB',
      spec(() => undefined),
      { ratio: 1.5 },
      218 * Mi + Math.trunc(Math.ceil((218 * Mi) / 1000) * 0.5) * 1000,
    ],
  ])('%s', (_n, v, opts, want) => {
    expect(memoryOverheadBytes(v, opts)).toBe(want);
  });

  it('our fixed per-process figures total less than KubeVirt’s', () => {
    const sum = (c: typeof OUR_OVERHEAD): number =>
      c.launcherBytes + c.libvirtdBytes + c.virtlogdBytes + c.qemuBytes;
    expect(sum(OUR_OVERHEAD)).toBe(170 * Mi);
    expect(sum(KUBEVIRT_OVERHEAD)).toBe(220 * Mi);
  });
});
