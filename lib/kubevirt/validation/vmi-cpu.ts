/**
 * CPU placement and topology of a VMI spec (KubeVirt vmi-create-admitter.go: validateCpuPinning and its
 * helpers, validateNUMA, validateCPUIsolatorThread, validateCPUFeaturePolicies, validateCPUHotplug,
 * validateRealtime). KubeVirt's "NUMA feature gate is not enabled" cannot fire: the gate is GA in v1.6.2.
 */
import type { Cpu } from '../v1/domain.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { child, invalid, item, notSupported, required, type Causes } from './causes.ts';
import { clusterOf } from './context.ts';
import { quantityInt, quantityMilli } from './quantities.ts';
import type { SpecRule } from './rule.ts';

const VALID_FEATURE_POLICIES: ReadonlySet<string> = new Set([
  '',
  'force',
  'require',
  'optional',
  'disable',
  'forbid',
]);

/** hwutil.GetNumberOfVCPUs: the product of cores, sockets and threads that are set (0 when none is). */
function numberOfVcpus(cpu: Cpu): bigint {
  const factors = [cpu.cores ?? 0, cpu.sockets ?? 0, cpu.threads ?? 0].filter((n) => n !== 0);
  return factors.length === 0 ? 0n : factors.reduce((acc, n) => acc * BigInt(n), 1n);
}

interface Paths {
  readonly arch: string;
  readonly cpu: (name: string) => string;
  readonly res: (kind: 'requests' | 'limits', name: string) => string;
}

const pathsOf = (path: string): Paths => ({
  arch: child(path, 'architecture'),
  cpu: (name) => child(path, 'domain', 'cpu', name),
  res: (kind, name) => child(path, 'domain', 'resources', kind, name),
});

interface Amounts {
  readonly reqMem: bigint;
  readonly limMem: bigint;
  readonly reqCpu: bigint;
  readonly limCpu: bigint;
  readonly vcpus: bigint;
}

function amountsOf(spec: VirtualMachineInstanceSpec, cpu: Cpu): Amounts {
  const res = spec.domain.resources;
  return {
    reqMem: quantityInt(res?.requests?.['memory']),
    limMem: quantityInt(res?.limits?.['memory']),
    reqCpu: quantityInt(res?.requests?.['cpu']),
    limCpu: quantityInt(res?.limits?.['cpu']),
    vcpus: numberOfVcpus(cpu),
  };
}

function pinningMemory(a: Amounts, p: Paths): Causes {
  const causes: Causes = [];
  if (a.reqMem === 0n && a.limMem === 0n) {
    const f = p.res('limits', 'memory');
    causes.push(invalid(f, `${p.res('requests', 'memory')} or ${f} should be provided`));
  }
  return causes;
}

function pinningIntegers(spec: VirtualMachineInstanceSpec, p: Paths): Causes {
  return (['requests', 'limits'] as const).flatMap((kind) => {
    const q = spec.domain.resources?.[kind]?.['cpu'];
    return quantityInt(q) > 0n && quantityInt(q) * 1000n !== quantityMilli(q)
      ? [invalid(p.res(kind, 'cpu'), `provided resources CPU ${kind} must be an interger`)]
      : [];
  });
}

function pinningMemoryEqual(a: Amounts, p: Paths): Causes {
  if (!(a.reqMem > 0n && a.limMem > 0n && a.reqMem !== a.limMem)) return [];
  const f = p.res('requests', 'memory');
  return [invalid(f, `${f} must be equal to ${p.res('limits', 'memory')}`)];
}

function pinningCpus(a: Amounts, p: Paths): Causes {
  const both = `${p.res('requests', 'cpu')} or ${p.res('limits', 'cpu')}`;
  const ded = p.cpu('dedicatedCpuPlacement');
  const causes: Causes = [];
  if (a.reqCpu === 0n && a.limCpu === 0n && a.vcpus === 0n) {
    causes.push(
      invalid(
        ded,
        `either ${p.res('requests', 'cpu')} or ${p.res('limits', 'cpu')} or ${p.cpu('cores')} must be provided when DedicatedCPUPlacement is true `,
      ),
    );
  }
  if (a.reqCpu > 0n && a.limCpu > 0n && a.reqCpu !== a.limCpu) {
    causes.push(invalid(ded, `${both} must be equal when DedicatedCPUPlacement is true `));
  }
  const withCores = (a.reqCpu > 0n || a.limCpu > 0n) && a.vcpus > 0n;
  if (withCores && a.reqCpu !== a.vcpus && a.limCpu !== a.vcpus) {
    causes.push(
      invalid(
        ded,
        `${both} must not be provided at the same time with ${p.cpu('cores')} when DedicatedCPUPlacement is true `,
      ),
    );
  }
  return causes;
}

function pinningThreads(cpu: Cpu, p: Paths, arch: string): Causes {
  const threads = cpu.threads ?? 0;
  const causes: Causes = [];
  if (threads > 1 && arch === 'arm64') {
    const f = p.arch;
    causes.push(
      invalid(
        f,
        `threads must not be greater than 1 at ${p.cpu('threads')} (got ${threads}) when ${f} is arm64`,
      ),
    );
  }
  if (threads > 2) {
    causes.push(
      invalid(
        p.cpu('dedicatedCpuPlacement'),
        `Not more than two threads must be provided at ${p.cpu('threads')} (got ${threads}) when DedicatedCPUPlacement is true`,
      ),
    );
  }
  return causes;
}

export const cpuPinning: SpecRule = (spec, ctx, path) => {
  const cpu = spec.domain.cpu;
  if (cpu?.dedicatedCpuPlacement !== true) return [];
  const p = pathsOf(path);
  const arch =
    spec.architecture !== undefined && spec.architecture !== ''
      ? spec.architecture
      : clusterOf(ctx).defaultArchitecture;
  const a = amountsOf(spec, cpu);
  return [
    ...pinningMemory(a, p),
    ...pinningIntegers(spec, p),
    ...pinningMemoryEqual(a, p),
    ...pinningCpus(a, p),
    ...pinningThreads(cpu, p, arch),
  ];
};

export const numa: SpecRule = (spec, _ctx, path) => {
  const cpu = spec.domain.cpu;
  if (cpu?.numa?.guestMappingPassthrough === undefined) return [];
  const p = pathsOf(path);
  const numaF = child(p.cpu('numa'), 'guestMappingPassthrough');
  const causes: Causes = [];
  if (cpu.dedicatedCpuPlacement !== true) {
    causes.push(
      invalid(
        numaF,
        `${p.cpu('dedicatedCpuPlacement')} must be set to true when NUMA topology strategy is set in ${numaF}`,
      ),
    );
  }
  if (spec.domain.memory?.hugepages === undefined) {
    const hugepages = child(path, 'domain', 'memory', 'hugepages');
    causes.push(
      invalid(numaF, `${hugepages} must be requested when NUMA topology strategy is set in ${numaF}`),
    );
  }
  return causes;
};

export const isolatorThread: SpecRule = (spec, _ctx, path) => {
  const cpu = spec.domain.cpu;
  if (cpu?.isolateEmulatorThread !== true || cpu.dedicatedCpuPlacement === true) return [];
  return [
    invalid(
      pathsOf(path).cpu('isolateEmulatorThread'),
      'IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement',
    ),
  ];
};

export const cpuFeaturePolicies: SpecRule = (spec, _ctx, path) =>
  (spec.domain.cpu?.features ?? []).flatMap((feature, i) => {
    const policy = feature.policy ?? '';
    if (VALID_FEATURE_POLICIES.has(policy)) return [];
    const f = child(item(path, ['domain', 'cpu', 'features'], i), 'policy');
    return [notSupported(f, `CPU feature ${feature.name} uses policy ${policy} that is not supported.`)];
  });

export const cpuHotplug: SpecRule = (spec, _ctx, path) => {
  const cpu = spec.domain.cpu;
  const max = cpu?.maxSockets ?? 0;
  if (max === 0 || (cpu?.sockets ?? 0) <= max) return [];
  return [
    invalid(
      pathsOf(path).cpu('sockets'),
      'Number of sockets in CPU topology is greater than the maximum sockets allowed',
    ),
  ];
};

export const realtime: SpecRule = (spec, _ctx, path) => {
  const cpu = spec.domain.cpu;
  if (cpu?.realtime === undefined) return [];
  const p = pathsOf(path);
  const rt = p.cpu('realtime');
  const causes: Causes = [];
  if (cpu.dedicatedCpuPlacement !== true) {
    const f = p.cpu('dedicatedCpuPlacement');
    causes.push(required(f, `${f} must be set to true when ${rt} is used`));
  }
  if (cpu.numa?.guestMappingPassthrough === undefined) {
    const f = child(p.cpu('numa'), 'guestMappingPassthrough');
    causes.push(required(f, `${f} must be defined when ${rt} is used`));
  }
  return causes;
};
