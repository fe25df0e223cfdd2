import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import type { DomainJson, LauncherClient, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { cpuHotplugTarget, syncCpuHotplug } from './cpu-hotplug.ts';

const topology = { sockets: 1, cores: 2, threads: 1 };

function vmiWith(o: { sockets?: number; maxSockets?: number; phase?: string; deleting?: boolean } = {}) {
  return {
    metadata: {
      name: 'v',
      namespace: 'ns',
      ...(o.deleting === true && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    },
    spec: {
      domain: {
        devices: {},
        cpu: { ...topology, sockets: o.sockets ?? 2, maxSockets: o.maxSockets ?? 4 },
      },
    },
    status: { phase: o.phase ?? 'Running', currentCPUTopology: topology },
  } as VirtualMachineInstance;
}

const dom = (s: LifeCycle = 'Running'): DomainJson => testDomain(s, 'Unknown');

describe('cpuHotplugTarget', () => {
  it.each([
    { what: 'a socket more', vmi: vmiWith(), domain: dom(), want: { sockets: 2, cores: 2, threads: 1 } },
    { what: 'the count it has', vmi: vmiWith({ sockets: 1 }), domain: dom(), want: undefined },
    {
      what: 'a paused domain',
      vmi: vmiWith(),
      domain: dom('Paused'),
      want: { sockets: 2, cores: 2, threads: 1 },
    },
    { what: 'no headroom', vmi: vmiWith({ maxSockets: 0 }), domain: dom(), want: undefined },
    { what: 'not Running', vmi: vmiWith({ phase: 'Scheduled' }), domain: dom(), want: undefined },
    { what: 'being deleted', vmi: vmiWith({ deleting: true }), domain: dom(), want: undefined },
    { what: 'no domain', vmi: vmiWith(), domain: undefined, want: undefined },
    { what: 'a domain that stopped', vmi: vmiWith(), domain: dom('Shutoff'), want: undefined },
    { what: 'no VMI', vmi: undefined, domain: dom(), want: undefined },
  ])('$what', ({ vmi, domain, want }) => {
    expect(cpuHotplugTarget(vmi, domain)).toEqual(want);
  });

  it('a socket less with the count differing is applied too (libvirt unplugs)', () => {
    const v = vmiWith({ sockets: 1 });
    (v.status ??= {}).currentCPUTopology = { ...topology, sockets: 3 };
    expect(cpuHotplugTarget(v, dom())).toEqual(topology);
  });
});

function fakeClient(answer: { success: boolean; message: string } | Error): {
  client: LauncherClient;
  calls: string[];
} {
  const calls: string[] = [];
  const client = {
    vmiCommand: (method: string): Promise<unknown> => {
      calls.push(method);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as LauncherClient;
  return { client, calls };
}

describe('syncCpuHotplug', () => {
  it('asks the launcher and answers the topology now in effect', async () => {
    const { client, calls } = fakeClient({ success: true, message: '' });
    const recorder = new MemoryRecorder();
    const got = await syncCpuHotplug({ vmi: vmiWith(), client, domain: dom(), recorder, log: nopLogger });
    expect(calls).toEqual(['syncVirtualMachineCpUs']);
    expect(got).toEqual({ sockets: 2, cores: 2, threads: 1 });
    expect(recorder.events).toEqual([]);
  });

  it('asks nothing when nothing changed', async () => {
    const { client, calls } = fakeClient({ success: true, message: '' });
    const v = vmiWith({ sockets: 1 });
    const got = await syncCpuHotplug({
      vmi: v,
      client,
      domain: dom(),
      recorder: new MemoryRecorder(),
      log: nopLogger,
    });
    expect(got).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it.each([
    {
      what: 'an in-band refusal',
      answer: { success: false, message: 'SyncVirtualMachineCPUs failed: no room' },
    },
    { what: 'a transport failure', answer: new Error('deadline exceeded') },
  ])('$what is a Warning event and no topology', async ({ answer }) => {
    const { client } = fakeClient(answer);
    const recorder = new MemoryRecorder();
    const got = await syncCpuHotplug({ vmi: vmiWith(), client, domain: dom(), recorder, log: nopLogger });
    expect(got).toBeUndefined();
    expect(recorder.events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'SyncFailed',
        message: expect.stringMatching(/^failed to change vCPUs: /) as unknown,
      }),
    ]);
  });
});
