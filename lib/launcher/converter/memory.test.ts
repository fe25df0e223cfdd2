import { describe, expect, it } from '@jest/globals';
import type { Memory, ResourceList } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import {
  emptyDomain,
  type DomainSpec,
  type MaxMemory,
  type NumaCell,
  type VirtioMem,
} from './domain-spec.ts';
import { memoryConfigurator, memoryHotplugNumaConfigurator, virtioMemOf } from './memory.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

const MiB = 2 ** 20;

function vmiWith(
  memory: Memory | undefined,
  requests?: ResourceList,
  limits?: ResourceList,
): ReturnType<typeof testVmi> {
  return testVmi(
    withSpec((s) => {
      if (memory === undefined) delete s.domain.memory;
      else s.domain.memory = memory;
      s.domain.resources = { ...(requests && { requests }), ...(limits && { limits }) };
    }),
  );
}

describe('memoryConfigurator', () => {
  interface Row {
    readonly memory?: Memory;
    readonly requests?: ResourceList;
    readonly limits?: ResourceList;
  }

  it.each<[string, Row, number]>([
    [
      'guest wins over requests and limits',
      { memory: { guest: '128Mi' }, requests: { memory: '1Gi' }, limits: { memory: '2Gi' } },
      128 * MiB,
    ],
    [
      'requests when no guest',
      { memory: {}, requests: { memory: '256Mi' }, limits: { memory: '2Gi' } },
      256 * MiB,
    ],
    ['limits when neither', { limits: { memory: '64Mi' } }, 64 * MiB],
    ['decimal units', { memory: { guest: '100M' } }, 100_000_000],
    ['plain bytes', { memory: { guest: 67108864 } }, 64 * MiB],
  ])('%s', (_, row, bytes) => {
    expect(runConfigurator(memoryConfigurator, vmiWith(row.memory, row.requests, row.limits)).memory).toBe(
      bytes,
    );
  });

  it.each<[string, Row, string, RegExp]>([
    ['no memory at all', {}, 'spec.domain.memory.guest', /no memory requested/],
    [
      'less than 1M',
      { memory: { guest: '512Ki' } },
      'spec.domain.memory.guest',
      /greater than or equal to 1M/,
    ],
    [
      'a bad quantity',
      { requests: { memory: 'lots' } },
      'spec.domain.resources.requests.memory',
      /not a valid/,
    ],
  ])('%s → error at %s', (_, row, field, message) => {
    expect(() => runConfigurator(memoryConfigurator, vmiWith(row.memory, row.requests))).toThrow(
      expect.objectContaining({ field, message: expect.stringMatching(message) }),
    );
  });

  it.each<[string, Memory, number, number | undefined]>([
    ['maxGuest above guest: room to grow', { guest: '1Gi', maxGuest: '4Gi' }, 1024 * MiB, 4096 * MiB],
    ["Deckhouse's 256Gi ceiling", { guest: '2Gi', maxGuest: '256Gi' }, 2048 * MiB, 256 * 1024 * MiB],
    ['maxGuest equal to guest: none', { guest: '1Gi', maxGuest: '1024Mi' }, 1024 * MiB, undefined],
    ['no maxGuest: none', { guest: '1Gi' }, 1024 * MiB, undefined],
  ])('%s', (_, memory, bytes, max) => {
    const d = runConfigurator(memoryConfigurator, vmiWith(memory));
    expect(d.memory).toBe(bytes);
    expect(d.maxMemory).toEqual(max === undefined ? undefined : { bytes: max, slots: 1 });
  });

  it('maxGuest without guest: the request is the memory, with no hotplug ceiling', () => {
    const d = runConfigurator(memoryConfigurator, vmiWith({ maxGuest: '4Gi' }, { memory: '1Gi' }));
    expect(d.memory).toBe(1024 * MiB);
    expect(d.maxMemory).toBeUndefined();
  });

  it.each<[string, Memory, RegExp]>([
    ['maxGuest below guest', { guest: '2Gi', maxGuest: '1Gi' }, /greater than the configured maxGuest/],
    ['a bad maxGuest', { guest: '1Gi', maxGuest: 'lots' }, /not a valid/],
  ])('%s → error at spec.domain.memory.maxGuest', (_, memory, message) => {
    expect(() => runConfigurator(memoryConfigurator, vmiWith(memory))).toThrow(
      expect.objectContaining({
        field: 'spec.domain.memory.maxGuest',
        message: expect.stringMatching(message),
      }),
    );
  });
});

describe('the virtio-mem device of memory hotplug', () => {
  const GiB = 1024 * MiB;
  function vmiAt(memory: Memory, guestAtBoot?: string): ReturnType<typeof testVmi> {
    const vmi = vmiWith(memory);
    if (guestAtBoot !== undefined) vmi.status = { ...vmi.status, memory: { guestAtBoot } };
    return vmi;
  }

  it.each<[string, Memory, string | undefined, number, VirtioMem | undefined]>([
    [
      'at start: the rest up to maxGuest, asked to hold nothing',
      { guest: '1Gi', maxGuest: '4Gi' },
      undefined,
      GiB,
      { sizeBytes: 3 * GiB, node: 0, blockBytes: 2 * MiB, requestedBytes: 0 },
    ],
    [
      'after a hotplug: boots with guestAtBoot, asked to hold the growth',
      { guest: '1536Mi', maxGuest: '4Gi' },
      '1Gi',
      GiB,
      { sizeBytes: 3 * GiB, node: 0, blockBytes: 2 * MiB, requestedBytes: 512 * MiB },
    ],
    [
      'grown to maxGuest',
      { guest: '4Gi', maxGuest: '4Gi' },
      '1Gi',
      GiB,
      { sizeBytes: 3 * GiB, node: 0, blockBytes: 2 * MiB, requestedBytes: 3 * GiB },
    ],
    [
      '1Gi hugepages: 1 GiB blocks',
      { guest: '2Gi', maxGuest: '8Gi', hugepages: { pageSize: '1Gi' } },
      undefined,
      2 * GiB,
      { sizeBytes: 6 * GiB, node: 0, blockBytes: GiB, requestedBytes: 0 },
    ],
    ['maxGuest equal to the boot memory: none', { guest: '1Gi', maxGuest: '1Gi' }, '1Gi', GiB, undefined],
  ])('%s', (...[, memory, atBoot, bootBytes, device]) => {
    const vmi = vmiAt(memory, atBoot);
    const d = runConfigurator(memoryConfigurator, vmi);
    expect(d.memory).toBe(bootBytes);
    expect(d.devices.memory).toEqual(device);
    expect(virtioMemOf(vmi)).toEqual(device);
  });

  it.each<[string, Memory, string | undefined, string, RegExp]>([
    [
      'a guest memory below the boot memory',
      { guest: '1Gi', maxGuest: '4Gi' },
      '2Gi',
      'spec.domain.memory.guest',
      /lower than the memory the VMI started with/,
    ],
    [
      'growth in part of a block',
      { guest: '1025Mi', maxGuest: '4Gi' },
      '1Gi',
      'spec.domain.memory.guest',
      /whole 2097152-byte blocks/,
    ],
    [
      'a ceiling in part of a 1 GiB block',
      { guest: '2Gi', maxGuest: '2560Mi', hugepages: { pageSize: '1Gi' } },
      undefined,
      'spec.domain.memory.maxGuest',
      /whole 1073741824-byte blocks/,
    ],
  ])('%s → error at %s', (...[, memory, atBoot, field, message]) => {
    expect(() => runConfigurator(memoryConfigurator, vmiAt(memory, atBoot))).toThrow(
      expect.objectContaining({ field, message: expect.stringMatching(message) }),
    );
  });
});

describe('memoryHotplugNumaConfigurator', () => {
  const withVcpus = (vcpu: number, maxMemory?: MaxMemory): DomainSpec => ({
    ...emptyDomain(),
    memory: 2048 * MiB,
    vcpu,
    ...(maxMemory && { maxMemory }),
  });

  it.each<[string, DomainSpec, NumaCell[] | undefined]>([
    [
      'memory hotplug: one node with every vCPU and the boot memory',
      withVcpus(32, { bytes: 8192 * MiB, slots: 1 }),
      [{ id: 0, cpus: '0-31', memoryKiB: 2048 * 1024 }],
    ],
    [
      'a single vCPU',
      withVcpus(1, { bytes: 8192 * MiB, slots: 1 }),
      [{ id: 0, cpus: '0', memoryKiB: 2048 * 1024 }],
    ],
    ['no memory hotplug: no node', withVcpus(4), undefined],
  ])('%s', (_, domain, cells) => {
    memoryHotplugNumaConfigurator.configure(testVmi(), domain, testCtx());
    expect(domain.cpu.numa).toEqual(cells);
  });

  it('boot memory that is no whole KiB rounds up', () => {
    const domain = { ...withVcpus(2, { bytes: 4096 * MiB, slots: 1 }), memory: 100_000_000 };
    memoryHotplugNumaConfigurator.configure(testVmi(), domain, testCtx());
    expect(domain.cpu.numa).toEqual([{ id: 0, cpus: '0-1', memoryKiB: 97_657 }]);
  });
});
