import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import type { DomainJson, LauncherClient, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { memoryHotplugTarget, syncMemoryHotplug, withMemoryHotplug } from './memory-hotplug.ts';

interface Opts {
  guest?: string;
  maxGuest?: string | null;
  phase?: 'Running' | 'Scheduled';
  deleting?: boolean;
  condition?: 'True' | 'False';
}

function vmiWith(o: Opts = {}): VirtualMachineInstance {
  const maxGuest = o.maxGuest === undefined ? '4Gi' : o.maxGuest;
  return {
    metadata: {
      name: 'v',
      namespace: 'ns',
      ...(o.deleting === true && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    },
    spec: {
      domain: { devices: {}, memory: { guest: o.guest ?? '1152Mi', ...(maxGuest !== null && { maxGuest }) } },
    },
    status: {
      phase: o.phase ?? 'Running',
      memory: { guestAtBoot: '1Gi', guestCurrent: '1Gi', guestRequested: '1Gi' },
      ...(o.condition !== undefined && { conditions: [{ type: 'HotMemoryChange', status: o.condition }] }),
    },
  };
}

const dom = (s: LifeCycle = 'Running'): DomainJson => testDomain(s, 'Unknown');

describe('memoryHotplugTarget', () => {
  it.each([
    { what: 'grown by 128Mi', vmi: vmiWith(), domain: dom(), want: '1152Mi' },
    { what: 'a paused domain', vmi: vmiWith(), domain: dom('Paused'), want: '1152Mi' },
    { what: 'marked for the change', vmi: vmiWith({ condition: 'True' }), domain: dom(), want: '1152Mi' },
    { what: 'the memory it has', vmi: vmiWith({ guest: '1024Mi' }), domain: dom(), want: undefined },
    { what: 'no headroom', vmi: vmiWith({ maxGuest: null }), domain: dom(), want: undefined },
    { what: 'refused before', vmi: vmiWith({ condition: 'False' }), domain: dom(), want: undefined },
    { what: 'not Running', vmi: vmiWith({ phase: 'Scheduled' }), domain: dom(), want: undefined },
    { what: 'being deleted', vmi: vmiWith({ deleting: true }), domain: dom(), want: undefined },
    { what: 'no domain', vmi: vmiWith(), domain: undefined, want: undefined },
    { what: 'a domain that stopped', vmi: vmiWith(), domain: dom('Shutoff'), want: undefined },
    { what: 'no VMI', vmi: undefined, domain: dom(), want: undefined },
  ])('$what', ({ vmi, domain, want }) => {
    expect(memoryHotplugTarget(vmi, domain)).toEqual(want);
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

describe('syncMemoryHotplug', () => {
  const step = (client: LauncherClient, recorder = new MemoryRecorder(), vmi = vmiWith()) => ({
    vmi,
    client,
    domain: dom(),
    recorder,
    log: nopLogger,
  });

  it('asks the launcher and answers the guest memory applied', async () => {
    const { client, calls } = fakeClient({ success: true, message: '' });
    const recorder = new MemoryRecorder();
    expect(await syncMemoryHotplug(step(client, recorder))).toEqual({ applied: '1152Mi' });
    expect(calls).toEqual(['syncVirtualMachineMemory']);
    expect(recorder.events).toEqual([]);
  });

  it('asks nothing when nothing changed', async () => {
    const { client, calls } = fakeClient({ success: true, message: '' });
    const got = await syncMemoryHotplug(step(client, new MemoryRecorder(), vmiWith({ guest: '1Gi' })));
    expect(got).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('an in-band refusal is a failure and a Warning event', async () => {
    const message = 'SyncVirtualMachineMemory failed: the domain has no virtio-mem device';
    const { client } = fakeClient({ success: false, message });
    const recorder = new MemoryRecorder();
    expect(await syncMemoryHotplug(step(client, recorder))).toEqual({ failed: message });
    expect(recorder.events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'SyncFailed',
        message: `failed to change the guest memory: ${message}`,
      }),
    ]);
  });

  it('a launcher not reached is a Warning event only (asked again next time)', async () => {
    const { client } = fakeClient(new Error('deadline exceeded'));
    const recorder = new MemoryRecorder();
    expect(await syncMemoryHotplug(step(client, recorder))).toBeUndefined();
    expect(recorder.events).toHaveLength(1);
  });
});

describe('withMemoryHotplug', () => {
  const run = (vmi: VirtualMachineInstance, outcome: Parameters<typeof withMemoryHotplug>[1]) => {
    const out = structuredClone(vmi);
    const status = (out.status ??= {});
    withMemoryHotplug(status, outcome, out);
    return status;
  };

  it('an applied change becomes guestRequested and HotMemoryChange goes', () => {
    const s = run(vmiWith({ condition: 'True' }), { applied: '1152Mi' });
    expect(s.memory).toEqual({ guestAtBoot: '1Gi', guestCurrent: '1Gi', guestRequested: '1152Mi' });
    expect(s.conditions).toEqual([]);
  });

  it('a refusal turns HotMemoryChange False with KubeVirt reason and message', () => {
    const s = run(vmiWith({ condition: 'True' }), { failed: 'no' });
    expect(s.conditions).toEqual([
      {
        type: 'HotMemoryChange',
        status: 'False',
        reason: 'MemoryHotplugFailed',
        message: 'memory hotplug failed, the VM configuration is not supported',
      },
    ]);
    expect(s.memory?.guestRequested).toBe('1Gi');
  });

  it('keeps HotMemoryChange while the change is not applied', () => {
    expect(run(vmiWith({ condition: 'True' }), undefined).conditions).toEqual([
      { type: 'HotMemoryChange', status: 'True' },
    ]);
  });
});
