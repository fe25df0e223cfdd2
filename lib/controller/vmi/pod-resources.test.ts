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

  describe('hugepages', () => {
    type Memory = Record<string, string | undefined>;
    const pick = (list: Record<string, string>, page: string): Memory => ({
      memory: list['memory'],
      [`hugepages-${page}`]: list[`hugepages-${page}`],
    });
    // The overhead of these 1-vCPU VMIs: 268Mi and the page tables of the memory request.
    const overhead = (pagetables: number): number => 268 * Mi + pagetables;

    it.each<[string, (s: Spec) => void, string, { requests: Memory; limits: Memory }]>([
      [
        'guest memory only: all of it as pages, the overhead as memory, no memory limit',
        (s) => (s.domain.memory = { guest: '2Gi', hugepages: { pageSize: '2Mi' } }),
        '2Mi',
        {
          requests: { memory: String(overhead(4_194_000)), 'hugepages-2Mi': '2Gi' },
          limits: { memory: undefined, 'hugepages-2Mi': '2Gi' },
        },
      ],
      [
        'a request and limit above the guest: pages of the guest, the rest as memory beside the overhead',
        (s) => {
          s.domain.memory = { guest: '2Gi', hugepages: { pageSize: '1Gi' } };
          s.domain.resources = { requests: { memory: '3Gi' }, limits: { memory: '4Gi' } };
        },
        '1Gi',
        {
          requests: { memory: String(overhead(6_291_000) + 1024 * Mi), 'hugepages-1Gi': '2Gi' },
          limits: { memory: String(overhead(6_291_000) + 2048 * Mi), 'hugepages-1Gi': '2Gi' },
        },
      ],
      [
        'a request and no guest: the request as pages',
        (s) => {
          s.domain.memory = { hugepages: { pageSize: '2Mi' } };
          s.domain.resources = { requests: { memory: '1Gi' } };
        },
        '2Mi',
        {
          requests: { memory: String(overhead(2_097_000)), 'hugepages-2Mi': '1Gi' },
          limits: { memory: undefined, 'hugepages-2Mi': '1Gi' },
        },
      ],
      [
        'a request below the guest: the request as pages',
        (s) => {
          s.domain.memory = { guest: '2Gi', hugepages: { pageSize: '2Mi' } };
          s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } };
        },
        '2Mi',
        {
          requests: { memory: String(overhead(2_097_000)), 'hugepages-2Mi': '1Gi' },
          limits: { memory: String(overhead(2_097_000)), 'hugepages-2Mi': '1Gi' },
        },
      ],
      [
        'overcommitGuestOverhead does not drop the overhead request',
        (s) => {
          s.domain.memory = { guest: '2Gi', hugepages: { pageSize: '2Mi' } };
          s.domain.resources = { overcommitGuestOverhead: true };
        },
        '2Mi',
        {
          requests: { memory: String(overhead(4_194_000)), 'hugepages-2Mi': '2Gi' },
          limits: { memory: undefined, 'hugepages-2Mi': '2Gi' },
        },
      ],
    ])('%s', (_n, patch, page, want) => {
      const r = launcherResources(withSpec(patch), opts);
      expect({ requests: pick(r.requests, page), limits: pick(r.limits, page) }).toEqual(want);
    });
  });

  describe("Deckhouse's cpu-resources-requests-fraction", () => {
    const FRACTION = 'internal.virtualization.deckhouse.io/cpu-resources-requests-fraction';
    const marked = (fraction: string, patch: (s: Spec) => void): VirtualMachineInstance => {
      const v = withSpec(patch);
      v.metadata.annotations = { [FRACTION]: fraction };
      return v;
    };
    // kvbuilder's dynamic-cores topology: cpu.cores is the socket count, cpu.sockets the cores of each.
    const cores = (sockets: number, perSocket: number) => (s: Spec) =>
      (s.domain.cpu = { cores: sockets, sockets: perSocket, threads: 1, maxSockets: 16 });

    it.each<[string, string, (s: Spec) => void, { cpu: string | undefined; limit: string | undefined }]>([
      ['8 vCPUs at 25%: 2 cores, limit 8', '25', cores(1, 8), { cpu: '2', limit: '8' }],
      ['1 vCPU at 25%: 250m', '25', cores(1, 1), { cpu: '250m', limit: '1' }],
      ['24 vCPUs at 25%: 6 cores', '25', cores(2, 12), { cpu: '6', limit: '24' }],
      ['256 vCPUs at 50%', '50', cores(8, 32), { cpu: '128', limit: '256' }],
      ['3 vCPUs at 33%: rounded up to 990m', '33', cores(1, 3), { cpu: '990m', limit: '3' }],
      ['5 vCPUs at 5%: 250m', '5', cores(1, 5), { cpu: '250m', limit: '5' }],
      ['100%: whole vCPUs', '100', cores(1, 4), { cpu: '4', limit: '4' }],
      ['0 counts as 100%', '0', cores(1, 2), { cpu: '2', limit: '2' }],
      ['above 100 counts as 100%', '150', cores(1, 2), { cpu: '2', limit: '2' }],
      ['no cpu at all: one vCPU', '10', () => undefined, { cpu: '100m', limit: '1' }],
      [
        "the VMI's own CPU request wins, and no limit is added",
        '25',
        (s) => {
          cores(1, 8)(s);
          s.domain.resources = { requests: { cpu: '3' } };
        },
        { cpu: '3', limit: undefined },
      ],
      [
        "the VMI's own CPU limit wins, the request falls back to the ratio",
        '25',
        (s) => {
          cores(1, 8)(s);
          s.domain.resources = { limits: { cpu: '8' } };
        },
        { cpu: '800m', limit: '8' },
      ],
    ])('%s', (_n, fraction, patch, want) => {
      const r = launcherResources(marked(fraction, patch), opts);
      expect(r.requests['cpu']).toBe(want.cpu);
      expect(r.limits['cpu']).toBe(want.limit);
    });

    it('dedicated CPUs stay whole cores', () => {
      const r = launcherResources(
        marked('25', (s) => (s.domain.cpu = { cores: 2, dedicatedCpuPlacement: true })),
        opts,
      );
      expect(r.requests['cpu']).toBe('2');
      expect(r.limits['cpu']).toBe('2');
    });

    it.each(['', '25%', 'half', '2.5'])('refuses %j', (fraction) => {
      expect(() => launcherResources(marked(fraction, cores(1, 2)), opts)).toThrow(
        expect.objectContaining({ code: 'KV_ERR_INVALID', message: expect.stringContaining(FRACTION) }),
      );
    });
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
