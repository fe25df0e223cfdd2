import { describe, expect, it } from '@jest/globals';
import type { Disk as VmiDisk, DiskBus, VirtualMachineInstanceSpec } from '../../kubevirt/index.ts';
import { withDisk, withVolume } from '../../kubevirt/testing/builders.ts';
import type { Configurator } from './configurator.ts';
import type { ConverterContextOptions } from './context.ts';
import { controllersConfigurator } from './controllers.ts';
import { toDomain, toDomainXml } from './convert.ts';
import { disksConfigurator } from './disks.ts';
import type { DomainSpec } from './domain-spec.ts';
import { ioThreadsConfigurator } from './iothreads.ts';
import { testCtx, testVmi } from './testing/vmi.ts';

type Patch = (s: VirtualMachineInstanceSpec) => void;

/** A disk on `bus` with an emptyDisk volume of the same name; `own` asks for a dedicated IOThread. */
function disk(name: string, bus: DiskBus, own = false): Patch[] {
  const d: VmiDisk = { name, disk: { bus }, ...(own && { dedicatedIOThread: true }) };
  return [withDisk(d), withVolume({ name, emptyDisk: { capacity: '1Gi' } })];
}

const cdrom = (name: string): Patch[] => [
  withDisk({ name, cdrom: { bus: 'sata' } }),
  withVolume({ name, containerDisk: { image: 'iso' } }),
];

const policy =
  (p: 'shared' | 'auto' | 'supplementalPool'): Patch =>
  (s) => {
    s.domain.ioThreadsPolicy = p;
  };

const cpus =
  (kind: 'requests' | 'limits', cpu: string): Patch =>
  (s) => {
    s.domain.resources = { [kind]: { cpu } };
  };

/** Only what IOThreads look at: the disks, the controllers, then the IOThreads (no unsupported-feature check). */
const PARTS: readonly Configurator[] = [disksConfigurator, controllersConfigurator, ioThreadsConfigurator];

function convert(patches: Patch[], ctx: Partial<ConverterContextOptions> = {}): DomainSpec {
  return toDomain(testVmi(...patches), testCtx(ctx), PARTS);
}

/** Each disk's IOThread by name, "-" for none. */
function placement(d: DomainSpec): Record<string, string> {
  return Object.fromEntries(
    d.devices.disks.map((x) => [
      x.alias.name,
      x.driver.iothread === undefined ? '-' : String(x.driver.iothread),
    ]),
  );
}

describe('IOThreads', () => {
  it.each<[string, Patch[], number | undefined, Record<string, string>]>([
    ['none without a policy or a dedicated disk', [...disk('a', 'virtio')], undefined, { a: '-' }],
    [
      'shared: one thread for every virtio disk',
      [policy('shared'), ...disk('a', 'virtio'), ...disk('b', 'virtio')],
      1,
      { a: '1', b: '1' },
    ],
    [
      'shared with a dedicated disk: it gets the thread after the shared one',
      [policy('shared'), ...disk('a', 'virtio'), ...disk('b', 'virtio', true), ...disk('c', 'virtio')],
      2,
      { a: '1', b: '2', c: '1' },
    ],
    [
      'a dedicated disk without a policy: one shared thread is kept',
      [...disk('a', 'virtio', true), ...disk('b', 'virtio')],
      2,
      { a: '2', b: '1' },
    ],
    ['a lone dedicated disk takes thread 1', [...disk('a', 'virtio', true)], 1, { a: '1' }],
    [
      'dedicated disks beyond the limit still get one each',
      [policy('shared'), ...disk('a', 'virtio', true), ...disk('b', 'virtio', true), ...disk('c', 'virtio')],
      3,
      { a: '2', b: '3', c: '1' },
    ],
    [
      'auto without CPU resources: two threads, taken in turn',
      [policy('auto'), ...['a', 'b', 'c', 'd'].flatMap((n) => disk(n, 'virtio'))],
      2,
      { a: '1', b: '2', c: '1', d: '2' },
    ],
    [
      'auto: two threads per requested CPU, no more than the disks',
      [policy('auto'), cpus('requests', '2'), ...['a', 'b', 'c'].flatMap((n) => disk(n, 'virtio'))],
      3,
      { a: '1', b: '2', c: '3' },
    ],
    [
      'auto: a CPU request is rounded up (500m → 1 CPU → 2 threads)',
      [policy('auto'), cpus('requests', '500m'), ...['a', 'b', 'c'].flatMap((n) => disk(n, 'virtio'))],
      2,
      { a: '1', b: '2', c: '1' },
    ],
    [
      'auto: the CPU limit when nothing is requested (1500m → 2 CPUs → 4 threads)',
      [
        policy('auto'),
        cpus('limits', '1500m'),
        ...['a', 'b', 'c', 'd', 'e'].flatMap((n) => disk(n, 'virtio')),
      ],
      4,
      { a: '1', b: '2', c: '3', d: '4', e: '1' },
    ],
    [
      'auto: one thread when the emulator thread has a dedicated CPU',
      [
        policy('auto'),
        cpus('requests', '4'),
        (s): void => void (s.domain.cpu = { dedicatedCpuPlacement: true, isolateEmulatorThread: true }),
        ...disk('a', 'virtio'),
        ...disk('b', 'virtio'),
      ],
      1,
      { a: '1', b: '1' },
    ],
    [
      'disks on other buses count, but get no thread',
      [policy('auto'), ...disk('a', 'sata'), ...cdrom('cd'), ...disk('b', 'virtio'), ...disk('c', 'virtio')],
      2,
      { a: '-', cd: '-', b: '1', c: '2' },
    ],
    ['no disks: no IOThreads element', [policy('shared')], undefined, {}],
  ])('%s', (_, patches, count, expected) => {
    const d = convert(patches);
    expect(d.ioThreads).toBe(count);
    expect(placement(d)).toEqual(expected);
  });

  it('pairs domain disks with VMI disks by name when a hotplug disk is not mounted yet', () => {
    const d = convert([policy('shared'), ...disk('hp', 'virtio', true), ...disk('b', 'virtio')], {
      hotplugVolumes: new Set(['hp']),
    });
    expect(d.ioThreads).toBe(2);
    expect(placement(d)).toEqual({ b: '1' });
  });

  it.each<[string, Patch[], { iothread: number; queues: number } | undefined]>([
    ['no SCSI disk asks for a thread', [policy('shared'), ...disk('s', 'scsi')], undefined],
    [
      'a dedicated SCSI disk puts the controller on the next shared thread, a queue per vCPU',
      [
        policy('auto'),
        cpus('requests', '4'),
        ...disk('a', 'virtio'),
        ...disk('b', 'virtio'),
        ...disk('c', 'sata'),
        ...disk('s', 'scsi', true),
      ],
      { iothread: 3, queues: 4 },
    ],
  ])('SCSI controller: %s', (_, patches, driver) => {
    const scsi = convert(patches).devices.controllers.find((c) => c.type === 'scsi');
    expect(scsi?.driver).toEqual(driver);
  });

  it('refuses supplementalPool, which this libvirt would drop without a word', () => {
    expect(() => convert([policy('supplementalPool'), ...disk('a', 'virtio')])).toThrow(
      expect.objectContaining({ field: 'spec.domain.ioThreadsPolicy', reason: 'unsupported' }),
    );
  });

  it('writes <iothreads>, the disk driver iothread and the SCSI controller driver', () => {
    const xml = toDomainXml(
      testVmi(
        policy('shared'),
        ...disk('a', 'virtio'),
        ...disk('b', 'virtio', true),
        ...disk('s', 'scsi', true),
      ),
      testCtx(),
    );
    expect(xml).toContain(
      '<driver cache="none" error_policy="stop" name="qemu" type="qcow2" iothread="1" discard="unmap"/>',
    );
    expect(xml).toContain(
      '<driver cache="none" error_policy="stop" name="qemu" type="qcow2" iothread="2" discard="unmap"/>',
    );
    expect(xml).toContain(
      '<controller type="scsi" index="0" model="virtio-non-transitional">\n      <driver iothread="1" queues="1"/>',
    );
    expect(xml).toMatch(/<\/vcpu>\n {2}<iothreads>3<\/iothreads>\n<\/domain>/);
  });
});
