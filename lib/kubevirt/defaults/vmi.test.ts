import { describe, it } from '@jest/globals';
import {
  newVmi,
  withArch,
  withCpu,
  withLimits,
  withMemory,
  withRequests,
  withSpec,
} from '../testing/builders.ts';
import { checkRow, domain, type Row } from '../testing/vmi-rows.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';

describe('withVmiDefaults: machine, architecture, CPU model', () => {
  it.each<Row>([
    ['architecture defaults to the cluster one', newVmi(), {}, (v) => v.spec.architecture, 'amd64'],
    ['machine type q35 on amd64', newVmi(), {}, (v) => domain(v).machine, { type: 'q35' }],
    ['machine type virt on arm64', newVmi(withArch('arm64')), {}, (v) => domain(v).machine, { type: 'virt' }],
    [
      'machine type of s390x',
      newVmi(withArch('s390x')),
      {},
      (v) => domain(v).machine?.type,
      's390-ccw-virtio',
    ],
    [
      'unknown architecture falls back to amd64',
      newVmi(withArch('riscv64')),
      {},
      (v) => domain(v).machine?.type,
      'q35',
    ],
    [
      'cluster machine type wins',
      newVmi(),
      { machineType: 'pc-q35-rhel9.4.0' },
      (v) => domain(v).machine?.type,
      'pc-q35-rhel9.4.0',
    ],
    [
      'a machine type set on the VMI stays',
      newVmi(withSpec((s) => (s.domain.machine = { type: 'pc-q35-7.2' }))),
      { machineType: 'q35' },
      (v) => domain(v).machine?.type,
      'pc-q35-7.2',
    ],
    ['CPU model host-model', newVmi(), {}, (v) => domain(v).cpu?.model, 'host-model'],
    ['cluster CPU model', newVmi(), { cpuModel: 'Haswell' }, (v) => domain(v).cpu?.model, 'Haswell'],
    [
      'arm64 CPU model host-passthrough',
      newVmi(withArch('arm64')),
      {},
      (v) => domain(v).cpu?.model,
      'host-passthrough',
    ],
    [
      'arm64 boots EFI without secure boot',
      newVmi(withArch('arm64')),
      {},
      (v) => domain(v).firmware?.bootloader,
      { efi: { secureBoot: false } },
    ],
    [
      'firmware uuid from the caller',
      newVmi(),
      {},
      (v) => domain(v).firmware?.uuid,
      '11111111-2222-3333-4444-555555555555',
    ],
    [
      'a firmware uuid set on the VMI stays',
      newVmi(withSpec((s) => (s.domain.firmware = { uuid: 'mine' }))),
      {},
      (v) => domain(v).firmware?.uuid,
      'mine',
    ],
    ['ACPI on', newVmi(), {}, (v) => domain(v).features?.acpi, { enabled: true }],
    ['ACPI off on s390x', newVmi(withArch('s390x')), {}, (v) => domain(v).features?.acpi, { enabled: false }],
    [
      'Hyper-V spinlocks on with 4096 retries',
      newVmi(
        withSpec(
          (s) => (s.domain.features = { hyperv: { spinlocks: {}, relaxed: {}, vapic: { enabled: false } } }),
        ),
      ),
      {},
      (v) => domain(v).features?.hyperv,
      {
        spinlocks: { enabled: true, spinlocks: 4096 },
        relaxed: { enabled: true },
        vapic: { enabled: false },
      },
    ],
    [
      'timers present unless said otherwise',
      newVmi(withSpec((s) => (s.domain.clock = { timer: { hpet: { present: false }, rtc: {} } }))),
      {},
      (v) => domain(v).clock?.timer,
      { hpet: { present: false }, rtc: { present: true } },
    ],
    [
      'eviction strategy from the cluster',
      newVmi(),
      { evictionStrategy: 'LiveMigrate' },
      (v) => v.spec.evictionStrategy,
      'LiveMigrate',
    ],
    [
      'no eviction strategy when the cluster has none',
      newVmi(),
      {},
      (v) => v.spec.evictionStrategy,
      undefined,
    ],
  ])('%s', checkRow);
});

describe('withVmiDefaults: memory, resources and CPU topology', () => {
  it.each<Row>([
    [
      'guest memory from the request',
      newVmi(withRequests({ memory: '2Gi' })),
      {},
      (v) => domain(v).memory?.guest,
      '2Gi',
    ],
    [
      'request and guest memory from the limit',
      newVmi(withLimits({ memory: '3Gi' })),
      {},
      (v) => [domain(v).resources?.requests?.['memory'], domain(v).memory?.guest],
      ['3Gi', '3Gi'],
    ],
    [
      'memory request from the guest memory',
      newVmi(withMemory({ guest: '1Gi' })),
      {},
      (v) => domain(v).resources?.requests,
      { memory: '1Gi' },
    ],
    [
      'guest memory from the hugepage size',
      newVmi(withMemory({ hugepages: { pageSize: '2Mi' } })),
      {},
      (v) => [domain(v).memory?.guest, domain(v).resources?.requests?.['memory']],
      ['2Mi', '2Mi'],
    ],
    [
      'CPU request follows the limit',
      newVmi(withLimits({ cpu: '2', memory: '1Gi' })),
      {},
      (v) => domain(v).resources?.requests,
      { cpu: '2', memory: '1Gi' },
    ],
    [
      'cluster CPU request when it differs from 100m',
      newVmi(withRequests({ memory: '1Gi' })),
      { cpuRequest: '250m' },
      (v) => domain(v).resources?.requests?.['cpu'],
      '250m',
    ],
    [
      'no cluster CPU request equal to the default',
      newVmi(withRequests({ memory: '1Gi' })),
      { cpuRequest: '0.1' },
      (v) => domain(v).resources?.requests?.['cpu'],
      undefined,
    ],
    [
      'no cluster CPU request with dedicated CPUs',
      newVmi(withRequests({ memory: '1Gi' }), withCpu({ dedicatedCpuPlacement: true })),
      { cpuRequest: '1' },
      (v) => domain(v).resources?.requests?.['cpu'],
      undefined,
    ],
    ['topology 1/1/1', newVmi(), {}, (v) => pickTopology(v), { sockets: 1, cores: 1, threads: 1 }],
    [
      'one socket per CPU of the limit',
      newVmi(withLimits({ cpu: '4' })),
      { vmRolloutStrategy: 'Stage' },
      (v) => pickTopology(v),
      { sockets: 4, cores: 1, threads: 1 },
    ],
    [
      'a fractional request rounds up to one socket',
      newVmi(withRequests({ cpu: '500m' })),
      {},
      (v) => pickTopology(v),
      { sockets: 1, cores: 1, threads: 1 },
    ],
    [
      'a partial topology is left alone',
      newVmi(withCpu({ cores: 2 })),
      { vmRolloutStrategy: 'Stage' },
      (v) => pickTopology(v),
      { cores: 2 },
    ],
    [
      'status mirrors guest memory and topology',
      newVmi(withMemory({ guest: '1Gi' }), withCpu({ sockets: 2, cores: 1, threads: 1 })),
      {},
      (v) => [v.status?.memory, v.status?.currentCPUTopology],
      [
        { guestAtBoot: '1Gi', guestCurrent: '1Gi', guestRequested: '1Gi' },
        { sockets: 2, cores: 1, threads: 1 },
      ],
    ],
  ])('%s', checkRow);
});

function pickTopology(v: VirtualMachineInstance): Record<string, number | undefined> {
  const { sockets, cores, threads } = v.spec.domain.cpu ?? {};
  return Object.fromEntries(Object.entries({ sockets, cores, threads }).filter(([, n]) => n !== undefined));
}

describe('withVmiDefaults: hotplug headroom (LiveUpdate)', () => {
  it.each<Row>([
    [
      'maxSockets = sockets × 4',
      newVmi(withCpu({ sockets: 2, cores: 1, threads: 1 })),
      {},
      (v) => domain(v).cpu?.maxSockets,
      8,
    ],
    [
      'maxSockets kept within 512 vCPUs',
      newVmi(withCpu({ sockets: 4, cores: 32, threads: 2 })),
      {},
      (v) => domain(v).cpu?.maxSockets,
      8,
    ],
    [
      'configured maxCpuSockets, raised to the sockets asked for',
      newVmi(withCpu({ sockets: 6, cores: 1, threads: 1 })),
      { maxCpuSockets: 4 },
      (v) => domain(v).cpu?.maxSockets,
      6,
    ],
    [
      'no headroom under Stage',
      newVmi(withCpu({ sockets: 2, cores: 1, threads: 1 })),
      { vmRolloutStrategy: 'Stage' },
      (v) => domain(v).cpu?.maxSockets,
      undefined,
    ],
    [
      'maxGuest = guest × 4',
      newVmi(withMemory({ guest: '2Gi' })),
      {},
      (v) => domain(v).memory?.maxGuest,
      '8Gi',
    ],
    [
      'configured maxGuest',
      newVmi(withMemory({ guest: '2Gi' })),
      { maxGuest: '16Gi' },
      (v) => domain(v).memory?.maxGuest,
      '16Gi',
    ],
    [
      'no memory hotplug below 1Gi',
      newVmi(withMemory({ guest: '512Mi' })),
      {},
      (v) => domain(v).memory?.maxGuest,
      undefined,
    ],
    [
      'no memory hotplug when misaligned',
      newVmi(withMemory({ guest: '1025Mi' })),
      {},
      (v) => domain(v).memory?.maxGuest,
      undefined,
    ],
    [
      'no hotplug on arm64',
      newVmi(withArch('arm64'), withMemory({ guest: '2Gi' })),
      {},
      (v) => [domain(v).memory?.maxGuest, domain(v).cpu?.maxSockets],
      [undefined, undefined],
    ],
    [
      'no memory hotplug with realtime CPUs',
      newVmi(withMemory({ guest: '2Gi' }), withCpu({ realtime: {} })),
      {},
      (v) => domain(v).memory?.maxGuest,
      undefined,
    ],
  ])('%s', checkRow);
});
