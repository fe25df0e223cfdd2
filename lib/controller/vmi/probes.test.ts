import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { launcherProbe, launcherProbes } from './probes.ts';

const VMI = { metadata: { name: 'vm', namespace: 'ns' } };
const PROBE = ['virt', 'launcher', 'probe', '--domainName', 'ns_vm', '--timeoutSeconds'];
const TIMINGS = {
  initialDelaySeconds: 10,
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};

describe('launcherProbe', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'guestAgentPing: the probe command with --guestAgentPing, one second more for the Pod',
      { guestAgentPing: {} },
      { ...TIMINGS, timeoutSeconds: 2, exec: { command: [...PROBE, '1', '--guestAgentPing'] } },
    ],
    [
      'exec: the probe command with --command, the arguments after --',
      { exec: { command: ['/bin/sh', '-c', 'exit 0'] }, timeoutSeconds: 3 },
      {
        ...TIMINGS,
        timeoutSeconds: 4,
        exec: { command: [...PROBE, '3', '--command', '/bin/sh', '--', '-c', 'exit 0'] },
      },
    ],
    [
      'exec of a program alone: nothing after --',
      { exec: { command: ['true'] } },
      { ...TIMINGS, timeoutSeconds: 2, exec: { command: [...PROBE, '1', '--command', 'true', '--'] } },
    ],
    [
      'exec without a command: as given, the timeout as it is',
      { exec: { command: [] } },
      { ...TIMINGS, exec: { command: [] } },
    ],
    [
      'httpGet: onto the Pod as it is',
      { httpGet: { port: 1500, path: '/healthz' }, timeoutSeconds: 2 },
      { ...TIMINGS, timeoutSeconds: 2, httpGet: { port: 1500, path: '/healthz' } },
    ],
    [
      'tcpSocket: onto the Pod as it is',
      { tcpSocket: { port: 1500 } },
      { ...TIMINGS, tcpSocket: { port: 1500 } },
    ],
    [
      'timings kept, the initial delay 10 s later',
      {
        tcpSocket: { port: 22 },
        initialDelaySeconds: 5,
        timeoutSeconds: 7,
        periodSeconds: 3,
        successThreshold: 2,
        failureThreshold: 9,
      },
      {
        initialDelaySeconds: 15,
        timeoutSeconds: 7,
        periodSeconds: 3,
        successThreshold: 2,
        failureThreshold: 9,
        tcpSocket: { port: 22 },
      },
    ],
    [
      "timings below 1 (and not integers) get KubeVirt's defaults",
      {
        tcpSocket: { port: 22 },
        initialDelaySeconds: -4,
        timeoutSeconds: 0,
        periodSeconds: -1,
        successThreshold: '2',
        failureThreshold: 1.5,
      },
      { ...TIMINGS, initialDelaySeconds: 6, tcpSocket: { port: 22 } },
    ],
  ])('%s', (_what, probe, want) => {
    expect(launcherProbe(VMI, probe, ['virt', 'launcher', 'probe'])).toEqual(want);
  });

  it('copies the handler: the VMI keeps its own', () => {
    const probe = { httpGet: { port: 80, httpHeaders: [{ name: 'a', value: 'b' }] } };
    const out = launcherProbe(VMI, probe, ['p']);
    (out.httpGet?.['httpHeaders'] as unknown[]).push('changed');
    expect(probe.httpGet.httpHeaders).toHaveLength(1);
  });
});

describe('launcherProbes', () => {
  const vmi = (spec: Partial<VirtualMachineInstance['spec']>): VirtualMachineInstance => ({
    ...VMI,
    spec: { domain: { devices: {} }, ...spec },
  });

  it('renders neither probe for a VMI without them', () => {
    expect(launcherProbes(vmi({}))).toEqual({});
  });

  it('renders each probe the VMI has, with the probe command given', () => {
    const out = launcherProbes(
      vmi({ readinessProbe: { guestAgentPing: {} }, livenessProbe: { tcpSocket: { port: 1 } } }),
      ['/opt/virt/dist/virt', 'launcher', 'probe'],
    );
    expect(out.readinessProbe?.exec?.['command']).toEqual([
      '/opt/virt/dist/virt',
      'launcher',
      'probe',
      '--domainName',
      'ns_vm',
      '--timeoutSeconds',
      '1',
      '--guestAgentPing',
    ]);
    expect(out.livenessProbe).toEqual({ ...TIMINGS, tcpSocket: { port: 1 } });
  });
});
