import { describe, it } from '@jest/globals';
import { checkSpecRow, ctxWith, inv, ns, req, type Row, type Spec } from './testing/fixtures.ts';

const CPU = 'spec.domain.cpu';
const REQ = 'spec.domain.resources.requests';
const LIM = 'spec.domain.resources.limits';
const DED = `${CPU}.dedicatedCpuPlacement`;

/** Dedicated CPUs with what the pinning rules need: equal memory request and limit, 2 vCPUs requested. */
function pinned(s: Spec): void {
  s.domain.cpu = { cores: 2, sockets: 1, threads: 1, dedicatedCpuPlacement: true };
  s.domain.resources = { requests: { memory: '1Gi', cpu: '2' }, limits: { memory: '1Gi', cpu: '2' } };
}

describe('validateVmiSpec: CPU placement and topology', () => {
  it.each<Row>([
    ['dedicated CPUs, complete', pinned, []],
    [
      'dedicated CPUs without memory amounts',
      (s) => {
        pinned(s);
        s.domain.resources = { requests: { cpu: '2' }, limits: { cpu: '2' } };
      },
      [inv(`${LIM}.memory`, `${REQ}.memory or ${LIM}.memory should be provided`)],
    ],
    [
      'dedicated CPUs with a fractional CPU request',
      (s) => {
        pinned(s);
        s.domain.cpu = { dedicatedCpuPlacement: true };
        s.domain.resources = { requests: { memory: '1Gi', cpu: '1500m' }, limits: { memory: '1Gi' } };
      },
      [inv(`${REQ}.cpu`, 'provided resources CPU requests must be an interger')],
    ],
    [
      'dedicated CPUs with a fractional CPU limit',
      (s) => {
        pinned(s);
        s.domain.cpu = { dedicatedCpuPlacement: true };
        s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi', cpu: '2500m' } };
      },
      [inv(`${LIM}.cpu`, 'provided resources CPU limits must be an interger')],
    ],
    [
      'dedicated CPUs with memory request and limit apart',
      (s) => {
        pinned(s);
        s.domain.resources = { requests: { memory: '1Gi', cpu: '2' }, limits: { memory: '2Gi', cpu: '2' } };
      },
      [inv(`${REQ}.memory`, `${REQ}.memory must be equal to ${LIM}.memory`)],
    ],
    [
      'dedicated CPUs with no CPU count anywhere',
      (s) => {
        pinned(s);
        s.domain.cpu = { dedicatedCpuPlacement: true };
        s.domain.resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } };
      },
      [
        inv(
          DED,
          `either ${REQ}.cpu or ${LIM}.cpu or ${CPU}.cores must be provided when DedicatedCPUPlacement is true `,
        ),
      ],
    ],
    [
      'dedicated CPUs with request and limit apart',
      (s) => {
        pinned(s);
        s.domain.cpu = { dedicatedCpuPlacement: true };
        s.domain.resources = { requests: { memory: '1Gi', cpu: '1' }, limits: { memory: '1Gi', cpu: '2' } };
      },
      [inv(DED, `${REQ}.cpu or ${LIM}.cpu must be equal when DedicatedCPUPlacement is true `)],
    ],
    [
      'dedicated CPUs with a CPU count other than the topology',
      (s) => {
        pinned(s);
        s.domain.resources = { requests: { memory: '1Gi', cpu: '4' }, limits: { memory: '1Gi', cpu: '4' } };
      },
      [
        inv(
          DED,
          `${REQ}.cpu or ${LIM}.cpu must not be provided at the same time with ${CPU}.cores when DedicatedCPUPlacement is true `,
        ),
      ],
    ],
    [
      'dedicated CPUs with three threads',
      (s) => {
        pinned(s);
        s.domain.cpu = { cores: 1, sockets: 1, threads: 3, dedicatedCpuPlacement: true };
        s.domain.resources = { requests: { memory: '1Gi', cpu: '3' }, limits: { memory: '1Gi', cpu: '3' } };
      },
      [
        inv(
          DED,
          `Not more than two threads must be provided at ${CPU}.threads (got 3) when DedicatedCPUPlacement is true`,
        ),
      ],
    ],
    [
      'NUMA passthrough without dedicated CPUs or hugepages',
      (s) => (s.domain.cpu = { cores: 1, numa: { guestMappingPassthrough: {} } }),
      [
        inv(
          `${CPU}.numa.guestMappingPassthrough`,
          `${DED} must be set to true when NUMA topology strategy is set in ${CPU}.numa.guestMappingPassthrough`,
        ),
        inv(
          `${CPU}.numa.guestMappingPassthrough`,
          `spec.domain.memory.hugepages must be requested when NUMA topology strategy is set in ${CPU}.numa.guestMappingPassthrough`,
        ),
      ],
    ],
    [
      'emulator thread isolation without dedicated CPUs',
      (s) => (s.domain.cpu = { cores: 1, isolateEmulatorThread: true }),
      [
        inv(
          `${CPU}.isolateEmulatorThread`,
          'IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement',
        ),
      ],
    ],
    [
      'unknown CPU feature policy',
      (s) =>
        (s.domain.cpu = {
          cores: 1,
          features: [
            { name: 'vmx', policy: 'require' },
            { name: 'svm', policy: 'must' },
          ],
        }),
      [ns(`${CPU}.features[1].policy`, 'CPU feature svm uses policy must that is not supported.')],
    ],
    [
      'more sockets than maxSockets',
      (s) => (s.domain.cpu = { sockets: 4, maxSockets: 2, cores: 1, threads: 1 }),
      [
        inv(
          `${CPU}.sockets`,
          'Number of sockets in CPU topology is greater than the maximum sockets allowed',
        ),
      ],
    ],
    [
      'realtime without dedicated CPUs or NUMA passthrough',
      (s) => (s.domain.cpu = { cores: 1, realtime: {} }),
      [
        req(DED, `${DED} must be set to true when ${CPU}.realtime is used`),
        req(
          `${CPU}.numa.guestMappingPassthrough`,
          `${CPU}.numa.guestMappingPassthrough must be defined when ${CPU}.realtime is used`,
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it('arm64 dedicated CPUs with two threads (virt-api on arm64)', () => {
    checkSpecRow(
      (s) => {
        pinned(s);
        s.architecture = 'arm64';
        s.domain.machine = { type: 'virt' };
        s.domain.cpu = { cores: 1, sockets: 1, threads: 2, dedicatedCpuPlacement: true };
      },
      [
        inv(
          'spec.architecture',
          `threads must not be greater than 1 at ${CPU}.threads (got 2) when spec.architecture is arm64`,
        ),
      ],
      ctxWith(undefined, { apiArchitecture: 'arm64' }),
    );
  });
});
