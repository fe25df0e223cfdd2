import { describe, expect, it } from '@jest/globals';
import { requiresCpuHotplug, vcpusOf } from './cpu-hotplug.ts';
import type { VirtualMachineInstance } from './v1/objects.ts';

describe('vcpusOf', () => {
  it.each([
    { cpu: undefined, want: 0 },
    { cpu: {}, want: 0 },
    { cpu: { sockets: 2 }, want: 2 },
    { cpu: { cores: 3 }, want: 3 },
    { cpu: { sockets: 2, cores: 3, threads: 2 }, want: 12 },
    { cpu: { sockets: 0, cores: 4, threads: 0 }, want: 4 },
  ])('$cpu → $want', ({ cpu, want }) => {
    expect(vcpusOf(cpu)).toBe(want);
  });
});

type Cpu = NonNullable<VirtualMachineInstance['spec']['domain']['cpu']>;
type Topology = NonNullable<NonNullable<VirtualMachineInstance['status']>['currentCPUTopology']>;

const vmiOf = (cpu: Cpu | undefined, current: Topology | undefined): VirtualMachineInstance =>
  ({
    metadata: {},
    spec: { domain: { devices: {}, ...(cpu !== undefined && { cpu }) } },
    status: current === undefined ? {} : { currentCPUTopology: current },
  });

describe('requiresCpuHotplug', () => {
  const one = { sockets: 1, cores: 2, threads: 1 };
  it.each([
    { what: 'a socket more', cpu: { ...one, sockets: 2, maxSockets: 4 }, current: one, want: true },
    { what: 'a socket less', cpu: { ...one, maxSockets: 4 }, current: { ...one, sockets: 2 }, want: true },
    { what: 'the same count', cpu: { ...one, maxSockets: 4 }, current: one, want: false },
    {
      what: 'the same count in another shape',
      cpu: { sockets: 2, cores: 1, threads: 1, maxSockets: 4 },
      current: one,
      want: false,
    },
    { what: 'no headroom', cpu: { ...one, sockets: 2 }, current: one, want: false },
    {
      what: 'no recorded topology',
      cpu: { ...one, sockets: 2, maxSockets: 4 },
      current: undefined,
      want: false,
    },
    { what: 'no cpu', cpu: undefined, current: one, want: false },
  ])('$what: $want', ({ cpu, current, want }) => {
    expect(requiresCpuHotplug(vmiOf(cpu, current))).toBe(want);
  });
});
