import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainSpec, MemoryBacking, NumaCell } from './domain-spec.ts';
import { filesystemsConfigurator } from './filesystems.ts';
import { memoryBackingConfigurator } from './memory-backing.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

const GiB = 2 ** 30;

interface Row {
  readonly pageSize?: string;
  readonly filesystems?: readonly string[];
  readonly memfd?: string;
  /** NUMA cells another configurator made first. */
  readonly numa?: NumaCell[];
}

function vmiFor(row: Row): VirtualMachineInstance {
  const vmi = testVmi((s) => {
    s.domain.memory = {
      guest: '2Gi',
      ...(row.pageSize !== undefined && { hugepages: { pageSize: row.pageSize } }),
    };
    if (row.filesystems !== undefined) {
      s.domain.devices.filesystems = row.filesystems.map((name) => ({ name, virtiofs: {} }));
    }
  });
  if (row.memfd !== undefined) vmi.metadata.annotations = { 'kubevirt.io/memfd': row.memfd };
  return vmi;
}

function run(row: Row): DomainSpec {
  const domain = runConfigurator(
    { configure: (_v, d): void => void Object.assign(d, { memory: 2 * GiB, vcpu: 4 }) },
    vmiFor(row),
  );
  if (row.numa !== undefined) domain.cpu.numa = row.numa;
  memoryBackingConfigurator.configure(vmiFor(row), domain, testCtx());
  return domain;
}

const MEMFD_CELL: NumaCell[] = [{ id: 0, cpus: '0-3', memoryKiB: 2 * 1024 * 1024 }];

describe('memoryBackingConfigurator', () => {
  it.each<[string, Row, MemoryBacking | undefined, NumaCell[] | undefined]>([
    ['neither hugepages nor virtiofs: none', {}, undefined, undefined],
    [
      'hugepages on memfd, with the NUMA cell memfd needs',
      { pageSize: '2Mi' },
      { hugepages: true, source: 'memfd' },
      MEMFD_CELL,
    ],
    [
      '1Gi pages the same (the size is the mount’s)',
      { pageSize: '1Gi' },
      { hugepages: true, source: 'memfd' },
      MEMFD_CELL,
    ],
    [
      'memfd turned off by the annotation: no NUMA cell',
      { pageSize: '2Mi', memfd: 'false' },
      { hugepages: true },
      undefined,
    ],
    [
      'an annotation other than "false" keeps memfd',
      { pageSize: '2Mi', memfd: 'no' },
      { hugepages: true, source: 'memfd' },
      MEMFD_CELL,
    ],
    ['virtiofs: shared memfd', { filesystems: ['share'] }, { source: 'memfd', access: 'shared' }, MEMFD_CELL],
    [
      'virtiofs keeps memfd whatever the annotation says',
      { pageSize: '2Mi', memfd: 'false', filesystems: ['share'] },
      { hugepages: true, source: 'memfd', access: 'shared' },
      MEMFD_CELL,
    ],
    [
      'a NUMA cell made before (memory hotplug) is kept',
      { pageSize: '2Mi', numa: [{ id: 0, cpus: '0-3', memoryKiB: 42 }] },
      { hugepages: true, source: 'memfd' },
      [{ id: 0, cpus: '0-3', memoryKiB: 42 }],
    ],
  ])('%s', (_, row, backing, numa) => {
    const domain = run(row);
    expect(domain.memoryBacking).toEqual(backing);
    expect(domain.cpu.numa).toEqual(numa);
  });

  it('gives one vCPU the cell "0"', () => {
    const domain = runConfigurator(
      { configure: (_v, d): void => void Object.assign(d, { memory: GiB, vcpu: 1 }) },
      vmiFor({}),
    );
    memoryBackingConfigurator.configure(vmiFor({ pageSize: '2Mi' }), domain, testCtx());
    expect(domain.cpu.numa).toEqual([{ id: 0, cpus: '0', memoryKiB: 1024 * 1024 }]);
  });
});

describe('filesystemsConfigurator', () => {
  it('renders one vhost-user share per filesystem where the Pod serves them', () => {
    const domain = runConfigurator(
      filesystemsConfigurator,
      vmiFor({ filesystems: ['data', 'config'] }),
      testCtx({ root: '/tmp/kv/x', virtiofsServed: true }),
    );
    expect(domain.devices.filesystems).toEqual([
      { socket: '/tmp/kv/x/var/run/kubevirt/virtiofs-containers/data.sock', target: 'data', queue: 1024 },
      { socket: '/tmp/kv/x/var/run/kubevirt/virtiofs-containers/config.sock', target: 'config', queue: 1024 },
    ]);
  });

  it('refuses filesystems where no virtiofsd serves them, naming the field and why', () => {
    expect(() => runConfigurator(filesystemsConfigurator, vmiFor({ filesystems: ['data'] }))).toThrow(
      expect.objectContaining({
        field: 'spec.domain.devices.filesystems',
        reason: 'unsupported',
        message: expect.stringMatching(/it has no virtiofsd containers/) as unknown,
      }),
    );
  });

  it('does nothing without filesystems', () => {
    expect(runConfigurator(filesystemsConfigurator, vmiFor({})).devices.filesystems).toBeUndefined();
  });
});
