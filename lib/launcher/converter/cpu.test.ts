import { describe, expect, it } from '@jest/globals';
import {
  ANNOTATIONS,
  type Cpu,
  type ResourceList,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { withCpu, withLimits, withRequests, type SpecOption } from '../../kubevirt/testing/builders.ts';
import type { Arch } from './context.ts';
import { cpuModelConfigurator } from './cpu-model.ts';
import { cpuTopology, cpuTopologyConfigurator } from './cpu-topology.ts';
import type { VcpuEntry } from './domain-spec.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

describe('cpuTopologyConfigurator', () => {
  interface Row {
    readonly cpu?: Cpu;
    readonly requests?: ResourceList;
    readonly limits?: ResourceList;
  }

  it.each<[string, Row, string, number]>([
    ['nothing → one socket', {}, '1/1/1', 1],
    ['the given topology', { cpu: { sockets: 2, cores: 4, threads: 2 } }, '2/4/2', 16],
    ['missing parts count as one', { cpu: { cores: 3 }, requests: { cpu: '8' } }, '1/3/1', 3],
    ['requests round up to sockets', { requests: { cpu: '1500m' } }, '2/1/1', 2],
    ['limits win over requests', { requests: { cpu: '1' }, limits: { cpu: '3' } }, '3/1/1', 3],
    ['a zero request still gives a socket', { requests: { cpu: '0' } }, '1/1/1', 1],
  ])('%s', (_, row, topology, vcpus) => {
    const vmi = testVmi(
      ...(row.cpu ? [withCpu(row.cpu)] : []),
      ...(row.requests ? [withRequests(row.requests)] : []),
      ...(row.limits ? [withLimits(row.limits)] : []),
    );
    const d = runConfigurator(cpuTopologyConfigurator, vmi);
    const t = d.cpu.topology;
    expect(`${t.sockets}/${t.cores}/${t.threads}`).toBe(topology);
    expect(d.vcpu).toBe(vcpus);
    expect(d.vcpus).toBeUndefined();
  });

  it('lists hotpluggable vCPUs up to maxSockets, the first socket fixed', () => {
    const vmi = testVmi(withCpu({ sockets: 1, cores: 2, threads: 1, maxSockets: 3 }));
    const d = runConfigurator(cpuTopologyConfigurator, vmi);
    expect(d.cpu.topology).toEqual({ sockets: 3, cores: 2, threads: 1 });
    expect(d.vcpu).toBe(6);
    expect(d.vcpus?.map((v) => `${v.id}:${v.enabled}:${v.hotpluggable}`)).toEqual([
      '0:yes:no',
      '1:yes:no',
      '2:no:yes',
      '3:no:yes',
      '4:no:yes',
      '5:no:yes',
    ]);
  });

  it('has no CPU hotplug on arm64', () => {
    const vmi = testVmi(withCpu({ sockets: 1, cores: 1, threads: 1, maxSockets: 4 }));
    const d = runConfigurator(cpuTopologyConfigurator, vmi, testCtx({ arch: 'arm64' }));
    expect(d.vcpu).toBe(1);
    expect(d.vcpus).toBeUndefined();
  });

  it.each<[string, Cpu, string]>([
    ['maxSockets below sockets', { sockets: 4, maxSockets: 2 }, 'spec.domain.cpu.maxSockets'],
    ['negative cores', { cores: -1 }, 'spec.domain.cpu.cores'],
    ['fractional threads', { threads: 1.5 }, 'spec.domain.cpu.threads'],
  ])('%s → error at %s', (_, cpu, field) => {
    expect(() => runConfigurator(cpuTopologyConfigurator, testVmi(withCpu(cpu)))).toThrow(
      expect.objectContaining({ field }),
    );
  });
});

describe('cpuTopologyConfigurator with Deckhouse dynamic cores', () => {
  const marked = (...opts: SpecOption[]): VirtualMachineInstance => {
    const vmi = testVmi(...opts);
    vmi.metadata.annotations = { [ANNOTATIONS.VCPU_TOPOLOGY_DYNAMIC_CORES]: '' };
    return vmi;
  };
  /** "0-3,8" for the ids of the entries that pass. */
  const idRanges = (vcpus: readonly VcpuEntry[] | undefined, pass: (v: VcpuEntry) => boolean): string => {
    const runs: [number, number][] = [];
    for (const { id } of (vcpus ?? []).filter(pass)) {
      const last = runs.at(-1);
      if (last !== undefined && last[1] === id - 1) last[1] = id;
      else runs.push([id, id]);
    }
    return runs.map(([a, b]) => (a === b ? String(a) : `${String(a)}-${String(b)}`)).join(',');
  };

  interface Row {
    readonly cpu: Cpu;
    readonly arch?: Arch;
    /** sockets/cores/threads of the domain. */
    readonly topology: string;
    readonly vcpu: number;
    /** Ids of the enabled vCPUs, then of the hotpluggable ones ('' without a per-vCPU list). */
    readonly enabled: string;
    readonly hotpluggable: string;
  }

  it.each<[string, Row]>([
    [
      'without maxSockets: cores are the sockets, sockets the cores of each',
      { cpu: { cores: 2, sockets: 10 }, topology: '2/10/1', vcpu: 20, enabled: '', hotpluggable: '' },
    ],
    [
      '4 cores: one socket of 4 cores that grows to 16',
      {
        cpu: { cores: 1, sockets: 4, threads: 1, maxSockets: 16 },
        topology: '1/16/1',
        vcpu: 16,
        enabled: '0-3',
        hotpluggable: '1-15',
      },
    ],
    [
      '20 cores: 2 sockets of 10, the first 10 cores of each socket enabled',
      {
        cpu: { cores: 2, sockets: 10, threads: 1, maxSockets: 16 },
        topology: '2/16/1',
        vcpu: 32,
        enabled: '0-9,16-25',
        hotpluggable: '1-31',
      },
    ],
    [
      'maxSockets below cores is fine: it bounds the cores per socket',
      {
        cpu: { cores: 8, sockets: 2, maxSockets: 4 },
        topology: '8/4/1',
        vcpu: 32,
        enabled: '0-1,4-5,8-9,12-13,16-17,20-21,24-25,28-29',
        hotpluggable: '1-31',
      },
    ],
    [
      'two threads: the first core (both threads) is fixed',
      {
        cpu: { cores: 2, sockets: 1, threads: 2, maxSockets: 3 },
        topology: '2/3/2',
        vcpu: 12,
        enabled: '0-1,6-7',
        hotpluggable: '2-11',
      },
    ],
    [
      'no CPU hotplug on arm64: the swap alone',
      {
        cpu: { cores: 2, sockets: 3, maxSockets: 8 },
        arch: 'arm64',
        topology: '2/3/1',
        vcpu: 6,
        enabled: '',
        hotpluggable: '',
      },
    ],
  ])('%s', (_, row) => {
    const ctx = testCtx(row.arch === undefined ? {} : { arch: row.arch });
    const d = runConfigurator(cpuTopologyConfigurator, marked(withCpu(row.cpu)), ctx);
    const t = d.cpu.topology;
    expect(`${String(t.sockets)}/${String(t.cores)}/${String(t.threads)}`).toBe(row.topology);
    expect(d.vcpu).toBe(row.vcpu);
    expect(d.vcpus?.length ?? 0).toBe(row.enabled === '' ? 0 : row.vcpu);
    expect(idRanges(d.vcpus, (v) => v.enabled === 'yes')).toBe(row.enabled);
    expect(idRanges(d.vcpus, (v) => v.hotpluggable === 'yes')).toBe(row.hotpluggable);
  });

  it('a topology from the CPU limit is not swapped', () => {
    const d = runConfigurator(cpuTopologyConfigurator, marked(withLimits({ cpu: '3' })));
    expect(d.cpu.topology).toEqual({ sockets: 3, cores: 1, threads: 1 });
  });

  it('the guest topology is the swapped one for the other configurators too', () => {
    expect(cpuTopology(marked(withCpu({ cores: 2, sockets: 10 })))).toEqual({
      sockets: 2,
      cores: 10,
      threads: 1,
    });
  });

  it.each<[string, Cpu, string]>([
    [
      'maxSockets below the cores per socket',
      { cores: 2, sockets: 10, maxSockets: 8 },
      'must be at least sockets (10)',
    ],
    [
      'more than 512 vCPUs at the most cores',
      { cores: 8, sockets: 16, maxSockets: 100 },
      '800 vCPUs (8 sockets × 100 cores × 1 threads) exceed the maximum of 512',
    ],
  ])('refuses %s', (_, cpu, message) => {
    expect(() => runConfigurator(cpuTopologyConfigurator, marked(withCpu(cpu)))).toThrow(
      expect.objectContaining({
        field: 'spec.domain.cpu.maxSockets',
        message: `spec.domain.cpu.maxSockets: ${message}`,
      }),
    );
  });
});

describe('vCPU limits', () => {
  interface LimitRow {
    readonly cpu?: Cpu;
    readonly limits?: ResourceList;
    readonly maxVcpus?: number;
    readonly arch?: Arch;
  }

  it.each<[string, LimitRow, number]>([
    ["512 vCPUs, KubeVirt's upper bound", { cpu: { sockets: 2, cores: 128, threads: 2 } }, 512],
    ['maxSockets up to 512', { cpu: { sockets: 1, cores: 64, threads: 2, maxSockets: 4 } }, 512],
    ["libvirt's own maximum", { cpu: { sockets: 8 }, maxVcpus: 8 }, 8],
    ['a larger libvirt maximum still stops at 512', { cpu: { cores: 512 }, maxVcpus: 4096 }, 512],
    ['maxSockets beyond the limit outside amd64 and s390x', { cpu: { maxSockets: 1000 }, arch: 'arm64' }, 1],
  ])('accepts %s', (_, row, vcpus) => {
    const vmi = testVmi(
      ...(row.cpu ? [withCpu(row.cpu)] : []),
      ...(row.limits ? [withLimits(row.limits)] : []),
    );
    const ctx = testCtx({
      ...(row.maxVcpus !== undefined && { maxVcpus: row.maxVcpus }),
      ...(row.arch !== undefined && { arch: row.arch }),
    });
    expect(runConfigurator(cpuTopologyConfigurator, vmi, ctx).vcpu).toBe(vcpus);
  });

  it.each<[string, LimitRow, string]>([
    [
      '100 million cores',
      { cpu: { cores: 100_000_000 } },
      'spec.domain.cpu: 100000000 vCPUs (1 sockets × 100000000 cores × 1 threads) exceed the maximum of 512',
    ],
    [
      '513 vCPUs',
      { cpu: { sockets: 513 } },
      'spec.domain.cpu: 513 vCPUs (513 sockets × 1 cores × 1 threads) exceed the maximum of 512',
    ],
    [
      'more than libvirt allows on this host',
      { cpu: { sockets: 2, cores: 8 }, maxVcpus: 8 },
      'spec.domain.cpu: 16 vCPUs (2 sockets × 8 cores × 1 threads) exceed the maximum of 8 ' +
        "(libvirt's limit for this host)",
    ],
    [
      'maxSockets beyond the limit',
      { cpu: { sockets: 1, cores: 4, maxSockets: 1_000_000_000 } },
      'spec.domain.cpu.maxSockets: 4000000000 vCPUs (1000000000 sockets × 4 cores × 1 threads) exceed the ' +
        'maximum of 512',
    ],
    [
      'a CPU limit of 100000 without a topology',
      { limits: { cpu: '100000' } },
      'spec.domain.resources.limits.cpu: 100000 vCPUs (100000 sockets × 1 cores × 1 threads) exceed the ' +
        'maximum of 512',
    ],
  ])('refuses %s', (_, row, message) => {
    const vmi = testVmi(
      ...(row.cpu ? [withCpu(row.cpu)] : []),
      ...(row.limits ? [withLimits(row.limits)] : []),
    );
    const ctx = testCtx(row.maxVcpus === undefined ? {} : { maxVcpus: row.maxVcpus });
    expect(() => runConfigurator(cpuTopologyConfigurator, vmi, ctx)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID', message }),
    );
  });
});

interface ModelRow {
  readonly model?: string;
  readonly emulation?: boolean;
  readonly arch?: Arch;
  readonly hostCpuModels?: string[];
  readonly emulatedCpuModel?: string;
}

describe('cpuModelConfigurator', () => {
  it.each<[string, ModelRow, string, string | undefined]>([
    ['no model → host-model', {}, 'host-model', undefined],
    ['host-passthrough kept', { model: 'host-passthrough' }, 'host-passthrough', undefined],
    ['a named model is custom', { model: 'Skylake-Server' }, 'custom', 'Skylake-Server'],
    ['emulation replaces host-model with qemu64', { emulation: true }, 'custom', 'qemu64'],
    [
      'emulation replaces host-passthrough',
      { model: 'host-passthrough', emulation: true },
      'custom',
      'qemu64',
    ],
    ['emulation keeps a named model', { model: 'Nehalem', emulation: true }, 'custom', 'Nehalem'],
    ['emulation on arm64', { emulation: true, arch: 'arm64' }, 'custom', 'cortex-a57'],
    ['emulation with a chosen model', { emulation: true, emulatedCpuModel: 'max' }, 'custom', 'max'],
    [
      'emulation falls back to a usable model',
      { emulation: true, hostCpuModels: ['Westmere', 'Nehalem'] },
      'custom',
      'Westmere',
    ],
  ])('%s', (_, row, mode, model) => {
    const vmi = testVmi(withCpu(row.model === undefined ? {} : { model: row.model }));
    const ctx = testCtx({
      emulation: row.emulation ?? false,
      arch: row.arch ?? 'amd64',
      ...(row.hostCpuModels && { hostCpuModels: row.hostCpuModels }),
      ...(row.emulatedCpuModel !== undefined && { emulatedCpuModel: row.emulatedCpuModel }),
    });
    const d = runConfigurator(cpuModelConfigurator, vmi, ctx);
    expect(d.cpu.mode).toBe(mode);
    expect(d.cpu.model).toBe(model);
  });

  it('passes features with their policies (require when none) and disables mpx for named amd64 models', () => {
    const vmi = testVmi(
      withCpu({ model: 'Haswell', features: [{ name: 'vmx', policy: 'forbid' }, { name: 'pcid' }] }),
    );
    expect(runConfigurator(cpuModelConfigurator, vmi).cpu.features).toEqual([
      { name: 'vmx', policy: 'forbid' },
      { name: 'pcid', policy: 'require' },
      { name: 'mpx', policy: 'disable' },
    ]);
  });

  it.each<[string, Cpu, Arch]>([
    ['host-model', { features: [{ name: 'vmx' }] }, 'amd64'],
    ['mpx set by the VMI', { model: 'Haswell', features: [{ name: 'mpx', policy: 'optional' }] }, 'amd64'],
    ['arm64', { model: 'cortex-a72' }, 'arm64'],
  ])('adds no mpx for %s', (_, cpu, arch) => {
    const d = runConfigurator(cpuModelConfigurator, testVmi(withCpu(cpu)), testCtx({ arch }));
    expect(d.cpu.features.filter((f) => f.name === 'mpx' && f.policy === 'disable')).toHaveLength(0);
  });

  it.each<[string, Cpu, Partial<ModelRow>, string]>([
    [
      'an unknown policy',
      { features: [{ name: 'vmx', policy: 'maybe' }] },
      {},
      'spec.domain.cpu.features[0].policy',
    ],
    ['an empty feature name', { features: [{ name: '' }] }, {}, 'spec.domain.cpu.features[0].name'],
    [
      'a model the host cannot run',
      { model: 'EPYC' },
      { hostCpuModels: ['qemu64'] },
      'spec.domain.cpu.model',
    ],
  ])('%s → error at %s', (_, cpu, row, field) => {
    const ctx = testCtx({ ...(row.hostCpuModels && { hostCpuModels: row.hostCpuModels }) });
    expect(() => runConfigurator(cpuModelConfigurator, testVmi(withCpu(cpu)), ctx)).toThrow(
      expect.objectContaining({ field }),
    );
  });
});
