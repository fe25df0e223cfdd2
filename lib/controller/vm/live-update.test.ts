import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  vm,
  vmi,
  vmiDeleting,
  withPhase,
  withVmCondition,
  withVmiCondition,
  type Option,
} from '../../kubevirt/testing/objects.ts';
import { decideLiveUpdate, type LiveUpdateInput } from './live-update.ts';

type Cpu = NonNullable<VirtualMachineInstance['spec']['domain']['cpu']>;
type Memory = NonNullable<VirtualMachineInstance['spec']['domain']['memory']>;

const cpu = { sockets: 1, cores: 2, threads: 1 };

const templateCpu =
  (c: Cpu, requests?: Record<string, string>, limits?: Record<string, string>): Option<VirtualMachine> =>
  (v) => {
    const d = v.spec.template.spec.domain;
    d.cpu = c;
    d.resources = { ...(requests !== undefined && { requests }), ...(limits !== undefined && { limits }) };
  };
const templateMemory =
  (m: Memory): Option<VirtualMachine> =>
  (v) => {
    v.spec.template.spec.domain.memory = m;
  };
const vmiCpu =
  (
    c: Cpu,
    requests?: Record<string, string>,
    limits?: Record<string, string>,
  ): Option<VirtualMachineInstance> =>
  (v) => {
    v.spec.domain.cpu = c;
    v.spec.domain.resources = {
      ...(requests !== undefined && { requests }),
      ...(limits !== undefined && { limits }),
    };
  };
const vmiMemory =
  (
    m: Memory,
    o: { atBoot?: string; current?: string; requests?: string; limits?: string } = {},
  ): Option<VirtualMachineInstance> =>
  (v) => {
    v.spec.domain.memory = m;
    v.spec.architecture = 'amd64';
    v.spec.domain.resources = {
      ...(o.requests !== undefined && { requests: { memory: o.requests } }),
      ...(o.limits !== undefined && { limits: { memory: o.limits } }),
    };
    const atBoot = o.atBoot ?? m.guest;
    const current = o.current ?? m.guest;
    (v.status ??= {}).memory = {
      ...(atBoot !== undefined && { guestAtBoot: atBoot }),
      ...(current !== undefined && { guestCurrent: current, guestRequested: current }),
    };
  };

const input = (
  v: VirtualMachine,
  i: VirtualMachineInstance | undefined,
  over: Partial<LiveUpdateInput> = {},
): LiveUpdateInput => ({ vm: v, vmi: i, rolloutStrategy: 'LiveUpdate', cpuAllocationRatio: 10, ...over });

const running = (...o: Option<VirtualMachineInstance>[]): VirtualMachineInstance =>
  vmi(withPhase('Running'), vmiCpu({ ...cpu, maxSockets: 4 }), ...o);

describe('decideLiveUpdate: CPU sockets', () => {
  it('patches the running VMI when sockets grow within maxSockets', () => {
    const d = decideLiveUpdate(input(vm(templateCpu({ ...cpu, sockets: 2 })), running()));
    expect(d).toEqual({
      kind: 'patchVmi',
      area: 'cpu',
      patch: [
        { op: 'test', path: '/spec/domain/cpu/sockets', value: 1 },
        { op: 'replace', path: '/spec/domain/cpu/sockets', value: 2 },
      ],
    });
  });

  it.each([
    { what: 'requests by 100m a vCPU', ratio: 10, requests: '200m', limits: undefined, want: ['400m'] },
    { what: 'requests and limits', ratio: 10, requests: '1', limits: '2', want: ['1200m', '2200m'] },
    { what: 'a whole CPU a vCPU', ratio: 1, requests: '2', limits: undefined, want: ['4'] },
  ])('moves CPU $what', ({ ratio, requests, limits, want }) => {
    const req = { cpu: requests };
    const lim = limits === undefined ? undefined : { cpu: limits };
    const d = decideLiveUpdate(
      input(
        vm(templateCpu({ ...cpu, sockets: 2 }, req, lim)),
        running(vmiCpu({ ...cpu, maxSockets: 4 }, req, lim)),
        { cpuAllocationRatio: ratio },
      ),
    );
    if (d.kind !== 'patchVmi') throw new Error(`expected a patch, got ${d.kind}`);
    expect(
      d.patch.filter((op) => op.op === 'replace' && op.path.endsWith('/cpu')).map((op) => op.value),
    ).toEqual(want);
    expect(d.patch.filter((op) => op.op === 'test').map((op) => op.value)).toEqual([
      1,
      requests,
      ...(limits === undefined ? [] : [limits]),
    ]);
  });

  it.each([
    {
      what: 'beyond maxSockets',
      v: vm(templateCpu({ ...cpu, sockets: 5 })),
      i: running(),
      message: "CPU sockets updated in template spec to a value higher than what's available",
    },
    {
      what: 'fewer sockets',
      v: vm(templateCpu({ ...cpu, sockets: 1 })),
      i: running(vmiCpu({ ...cpu, sockets: 2, maxSockets: 4 })),
      message: 'Reduction of CPU socket count requires a restart',
    },
    {
      what: 'no headroom',
      v: vm(templateCpu({ ...cpu, sockets: 2 })),
      i: running(vmiCpu(cpu)),
      message: "CPU sockets updated in template spec to a value higher than what's available",
    },
    {
      what: 'an arm64 VM',
      v: vm(templateCpu({ ...cpu, sockets: 2 }), (x) => (x.spec.template.spec.architecture = 'arm64')),
      i: running(),
      message: "ARM doesn't support CPU hotplug",
    },
  ])('asks for a restart: $what', ({ v, i, message }) => {
    expect(decideLiveUpdate(input(v, i))).toEqual({ kind: 'restartRequired', message });
  });

  it('asks for a restart under the Stage strategy', () => {
    const d = decideLiveUpdate(
      input(vm(templateCpu({ ...cpu, sockets: 2 })), running(), { rolloutStrategy: 'Stage' }),
    );
    expect(d).toEqual({
      kind: 'restartRequired',
      message: 'a non-live-updatable field was changed in the template spec',
    });
  });

  it.each([
    { what: 'the same sockets', v: vm(templateCpu({ ...cpu, maxSockets: 4 })), i: running() },
    { what: 'a template without cpu', v: vm(), i: running() },
    { what: 'no VMI', v: vm(templateCpu({ ...cpu, sockets: 2 })), i: undefined },
    { what: 'a VMI being deleted', v: vm(templateCpu({ ...cpu, sockets: 2 })), i: running(vmiDeleting) },
    { what: 'a final VMI', v: vm(templateCpu({ ...cpu, sockets: 2 })), i: running(withPhase('Succeeded')) },
    {
      what: 'a VM that already needs a restart',
      v: vm(templateCpu({ ...cpu, sockets: 2 }), withVmCondition('RestartRequired', 'True')),
      i: running(),
    },
  ])('does nothing for $what', ({ v, i }) => {
    expect(decideLiveUpdate(input(v, i))).toEqual({ kind: 'none' });
  });

  it.each([
    {
      what: 'a CPU hotplug in progress',
      i: running(withVmiCondition('HotVCPUChange', 'True')),
      reason: 'another CPU hotplug is in progress',
    },
    {
      what: 'a VMI not running yet',
      i: running(withPhase('Scheduled')),
      reason: 'the VMI is not running yet',
    },
  ])('waits for $what', ({ i, reason }) => {
    expect(decideLiveUpdate(input(vm(templateCpu({ ...cpu, sockets: 2 })), i))).toEqual({
      kind: 'wait',
      reason,
    });
  });
});

describe('decideLiveUpdate: guest memory', () => {
  const mem = { guest: '2Gi', maxGuest: '8Gi' };
  const grow = (template: Memory, limits?: string): VirtualMachine =>
    vm(templateMemory(template), (v) => {
      v.spec.template.spec.domain.resources = {
        requests: { memory: template.guest ?? '0' },
        ...(limits !== undefined && { limits: { memory: limits } }),
      };
    });

  it('patches a growth within maxGuest into the VMI, the memory request moved by the growth', () => {
    const d = decideLiveUpdate(
      input(grow({ guest: '2176Mi' }), running(vmiMemory(mem, { requests: '2Gi' }))),
    );
    expect(d).toEqual({
      kind: 'patchVmi',
      area: 'memory',
      patch: [
        { op: 'test', path: '/spec/domain/memory/guest', value: '2Gi' },
        { op: 'replace', path: '/spec/domain/memory/guest', value: '2176Mi' },
        { op: 'test', path: '/spec/domain/resources/requests/memory', value: '2Gi' },
        { op: 'replace', path: '/spec/domain/resources/requests/memory', value: '2176Mi' },
      ],
    });
  });

  it('moves the limit too when the template sets one', () => {
    const have = vmiMemory(mem, { requests: '2Gi', limits: '3Gi' });
    const d = decideLiveUpdate(input(grow({ guest: '3Gi' }, '4Gi'), running(have)));
    if (d.kind !== 'patchVmi') throw new Error(`expected a patch, got ${d.kind}`);
    expect(d.patch.slice(4)).toEqual([
      { op: 'test', path: '/spec/domain/resources/limits/memory', value: '3Gi' },
      { op: 'replace', path: '/spec/domain/resources/limits/memory', value: '4Gi' },
    ]);
  });

  it('raises a request that would end below the guest memory to it (and leaves the limit)', () => {
    const have = vmiMemory(mem, { requests: '1Gi', limits: '3Gi' });
    const d = decideLiveUpdate(input(grow({ guest: '3Gi' }, '4Gi'), running(have)));
    if (d.kind !== 'patchVmi') throw new Error(`expected a patch, got ${d.kind}`);
    expect(d.patch.slice(2)).toEqual([
      { op: 'test', path: '/spec/domain/resources/requests/memory', value: '1Gi' },
      { op: 'replace', path: '/spec/domain/resources/requests/memory', value: '3Gi' },
      { op: 'test', path: '/spec/domain/resources/limits/memory', value: '3Gi' },
      { op: 'replace', path: '/spec/domain/resources/limits/memory', value: '3Gi' },
    ]);
  });

  it('shrinks down to the boot memory live (virtio-mem unplugs)', () => {
    const have = vmiMemory({ guest: '3Gi', maxGuest: '8Gi' }, { atBoot: '2Gi', requests: '3Gi' });
    const d = decideLiveUpdate(input(grow({ guest: '2Gi' }), running(have)));
    expect(d.kind).toBe('patchVmi');
  });

  it('waits while another memory hotplug is under way', () => {
    const have = running(vmiMemory(mem), withVmiCondition('HotMemoryChange', 'True'));
    expect(decideLiveUpdate(input(grow({ guest: '3Gi' }), have))).toEqual({
      kind: 'wait',
      reason: 'another memory hotplug is in progress',
    });
  });

  it.each([
    {
      what: 'no maxGuest',
      want: '4Gi',
      have: { guest: '2Gi' },
      message: 'memory updated in template spec. Memory-hotplug is not available for this VM configuration',
    },
    {
      what: 'less than at boot',
      want: '1Gi',
      have: mem,
      message: 'memory updated in template spec to a value lower than what the VM started with',
    },
    {
      what: 'beyond maxGuest',
      want: '16Gi',
      have: mem,
      message: 'memory hotplug not supported, Guest memory is greater than the configured maxGuest memory',
    },
    {
      what: 'a size out of block alignment',
      want: '3073Mi',
      have: mem,
      message: 'memory hotplug not supported, Guest memory must be 2Mi aligned',
    },
  ])('asks for a restart: $what', ({ want, have, message }) => {
    const d = decideLiveUpdate(input(vm(templateMemory({ guest: want })), running(vmiMemory(have))));
    expect(d).toEqual({ kind: 'restartRequired', message });
  });

  it('asks for a restart once a hotplug failed', () => {
    const failed = withVmiCondition('HotMemoryChange', 'False', 'MemoryHotplugFailed');
    expect(decideLiveUpdate(input(grow({ guest: '3Gi' }), running(vmiMemory(mem), failed)))).toEqual({
      kind: 'restartRequired',
      message:
        'memory updated in template spec. Memory-hotplug failed and is not available for this VM configuration',
    });
  });

  it('asks for a restart under the Stage strategy', () => {
    const d = decideLiveUpdate(
      input(grow({ guest: '3Gi' }), running(vmiMemory(mem)), { rolloutStrategy: 'Stage' }),
    );
    expect(d).toEqual({
      kind: 'restartRequired',
      message: 'a non-live-updatable field was changed in the template spec',
    });
  });

  it('does nothing for the same amount written another way', () => {
    const d = decideLiveUpdate(input(vm(templateMemory({ guest: '2048Mi' })), running(vmiMemory(mem))));
    expect(d).toEqual({ kind: 'none' });
  });

  it('takes the CPU change first', () => {
    const v = vm(templateCpu({ ...cpu, sockets: 2 }), templateMemory({ guest: '4Gi' }));
    expect(decideLiveUpdate(input(v, running(vmiMemory(mem)))).kind).toBe('patchVmi');
  });
});
