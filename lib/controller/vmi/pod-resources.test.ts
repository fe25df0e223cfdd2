import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vmi } from '../../kubevirt/testing/objects.ts';
import { KUBEVIRT_OVERHEAD } from './overhead.ts';
import { launcherResources, type ResourceOptions, type ResourceRequirements } from './pod-resources.ts';

type Spec = VirtualMachineInstance['spec'];
const opts: ResourceOptions = {
  allowEmulation: false,
  cpuAllocationRatio: 10,
  overhead: { constants: KUBEVIRT_OVERHEAD },
};
const withSpec = (patch: (s: Spec) => void): VirtualMachineInstance =>
  vmi((v) => {
    v.spec.domain.resources = {};
    patch(v.spec);
  });
const Mi = 2 ** 20;
const KVM = 'devices.virtualization.deckhouse.io/kvm';
const TUN = 'devices.virtualization.deckhouse.io/tun';

describe('launcherResources', () => {
  it('minimal VMI: CPU 100m, memory = overhead, 50M ephemeral storage, kvm and tun', () => {
    expect(
      launcherResources(
        withSpec(() => undefined),
        opts,
      ),
    ).toEqual({
      requests: { cpu: '100m', memory: '268Mi', 'ephemeral-storage': '50M' },
      limits: { [KVM]: '1', [TUN]: '1' },
    });
  });

  it.each<[string, (s: Spec) => void, Partial<ResourceOptions>, ResourceRequirements]>([
    [
      'requests and limits get the overhead; the VMI CPU request wins (and counts 2 vCPUs)',
      (s) =>
        (s.domain.resources = {
          requests: { cpu: '2', memory: '1Gi' },
          limits: { memory: '1Gi', 'ephemeral-storage': '1G' },
        }),
      {},
      {
        requests: { cpu: '2', memory: String(1024 * Mi + 276 * Mi + 2_097_000), 'ephemeral-storage': '50M' },
        limits: { memory: String(1024 * Mi + 276 * Mi + 2_097_000), 'ephemeral-storage': '1050M' },
      },
    ],
    [
      'guest memory stands in for a missing request',
      (s) => (s.domain.memory = { guest: '2Gi' }),
      {},
      { requests: { memory: String(2048 * Mi + 268 * Mi + 4_194_000) }, limits: {} },
    ],
    [
      'overcommitGuestOverhead leaves the request alone',
      (s) => (s.domain.resources = { requests: { memory: '1Gi' }, overcommitGuestOverhead: true }),
      {},
      { requests: { memory: '1Gi' }, limits: {} },
    ],
    [
      '12 vCPUs at ratio 10: 1.2 cores',
      (s) => (s.domain.cpu = { cores: 12 }),
      {},
      { requests: { cpu: '1.2' }, limits: {} },
    ],
    [
      '4 vCPUs at ratio 8: 500m',
      (s) => (s.domain.cpu = { cores: 4 }),
      { cpuAllocationRatio: 8 },
      { requests: { cpu: '500m' }, limits: {} },
    ],
    [
      'dedicated CPUs: whole cores plus the emulator thread, memory limit = request',
      (s) => {
        s.domain.cpu = { cores: 2, sockets: 2, dedicatedCpuPlacement: true, isolateEmulatorThread: true };
        s.domain.resources = { requests: { memory: '1Gi' } };
      },
      {},
      {
        requests: { cpu: '5', memory: String(1024 * Mi + 392 * Mi + 2_097_000) },
        limits: { cpu: '5', memory: String(1024 * Mi + 392 * Mi + 2_097_000) },
      },
    ],
    [
      'a virtio NIC needs vhost-net',
      (s) => (s.domain.devices.interfaces = [{ name: 'default', masquerade: {} }]),
      {},
      { requests: {}, limits: { 'devices.virtualization.deckhouse.io/vhost-net': '1' } },
    ],
    [
      'vsock',
      (s) => (s.domain.devices.autoattachVSOCK = true),
      {},
      { requests: {}, limits: { 'devices.virtualization.deckhouse.io/vhost-vsock': '1' } },
    ],
    [
      'device-plugin GPUs and host devices count per name; DRA claims do not',
      (s) => {
        s.domain.devices.gpus = [
          { name: 'g1', deviceName: 'nvidia.com/T4' },
          { name: 'g2', deviceName: 'nvidia.com/T4' },
        ];
        s.domain.devices.hostDevices = [{ name: 'h', claimName: 'dra-claim', requestName: 'r' }];
      },
      {},
      { requests: {}, limits: { 'nvidia.com/T4': '2' } },
    ],
  ])('%s', (_n, patch, over, want) => {
    const r = launcherResources(withSpec(patch), { ...opts, ...over });
    expect(r.requests).toMatchObject(want.requests);
    expect(r.limits).toMatchObject(want.limits);
  });

  it('emulation allowed: no kvm and no vhost-net, only tun', () => {
    const r = launcherResources(
      withSpec((s) => (s.domain.devices.interfaces = [{ name: 'default', masquerade: {} }])),
      { ...opts, allowEmulation: true },
    );
    expect(r.limits).toEqual({ [TUN]: '1' });
  });

  it('no pod interface and no NIC: no tun', () => {
    const r = launcherResources(
      withSpec((s) => (s.domain.devices.autoattachPodInterface = false)),
      opts,
    );
    expect(r.limits).toEqual({ [KVM]: '1' });
  });
});
