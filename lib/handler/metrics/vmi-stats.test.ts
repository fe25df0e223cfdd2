import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { newVmi } from '../../kubevirt/testing/builders.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import type { LauncherClient } from '../../rpc/index.ts';
import { registerVmiStats, vmiSamples, type DomainStatsJson } from './vmi-stats.ts';

const named = (name: string): VirtualMachineInstance => {
  const v = newVmi();
  return { ...v, metadata: { name, namespace: 'ns1' } };
};
const vm = named('tiny');

const STATS: DomainStatsJson = {
  Cpu: { Time: 2_500_000_000, TimeSet: true, User: 0, UserSet: false },
  Memory: {
    RSS: 1024,
    RSSSet: true,
    Available: 0,
    AvailableSet: false,
    ActualBalloon: 65536,
    ActualBalloonSet: true,
  },
  Vcpu: [
    { Time: 1_000_000_000, TimeSet: true },
    { Time: 0, TimeSet: false },
  ],
  Block: [
    {
      Name: 'vda',
      RdBytes: 512,
      RdBytesSet: true,
      WrBytes: 0,
      WrBytesSet: false,
      RdReqs: 3,
      RdReqsSet: true,
    },
  ],
  Net: [{ Name: 'tap0', RxBytes: 100, RxBytesSet: true, TxBytes: 7, TxBytesSet: true }],
};

describe('vmiSamples', () => {
  const base = { namespace: 'ns1', name: 'tiny', node: 'local' };
  it.each([
    ['CPU time in seconds', 'kubevirt_vmi_cpu_usage_seconds_total', base, 2.5],
    ['vCPU 0 time', 'kubevirt_vmi_vcpu_seconds_total', { ...base, id: '0' }, 1],
    ['RSS in bytes from KiB', 'kubevirt_vmi_memory_resident_bytes', base, 1024 * 1024],
    ['balloon in bytes', 'kubevirt_vmi_memory_balloon_bytes', base, 65536 * 1024],
    ['drive read bytes', 'kubevirt_vmi_storage_read_traffic_bytes_total', { ...base, drive: 'vda' }, 512],
    ['drive read requests', 'kubevirt_vmi_storage_iops_read_total', { ...base, drive: 'vda' }, 3],
    ['received bytes', 'kubevirt_vmi_network_receive_bytes_total', { ...base, interface: 'tap0' }, 100],
    ['sent bytes', 'kubevirt_vmi_network_transmit_bytes_total', { ...base, interface: 'tap0' }, 7],
  ])('%s', (_what, metric, labels, value) => {
    expect(vmiSamples(vm, 'local', STATS)).toContainEqual({ metric, labels, value });
  });

  it('leaves out what libvirt did not set', () => {
    const names = vmiSamples(vm, 'local', STATS).map((s) => `${s.metric}${JSON.stringify(s.labels)}`);
    expect(names.filter((n) => n.startsWith('kubevirt_vmi_vcpu_seconds_total'))).toHaveLength(1);
    expect(names.some((n) => n.startsWith('kubevirt_vmi_memory_available_bytes'))).toBe(false);
    expect(names.some((n) => n.startsWith('kubevirt_vmi_storage_write_traffic_bytes_total'))).toBe(false);
  });

  it('yields nothing for an empty answer', () => {
    expect(vmiSamples(vm, 'local', {})).toEqual([]);
  });
});

describe('registerVmiStats', () => {
  function fakeClient(answer: LauncherClient['getDomainStats']): Pick<LauncherClient, 'getDomainStats'> {
    return { getDomainStats: answer };
  }

  it('asks the launchers of running VMIs once per scrape and drops VMIs that are gone', async () => {
    const registry = new Registry();
    let running = [vm];
    let asked = 0;
    const client = fakeClient(() => {
      asked++;
      return Promise.resolve({ success: true, message: '', payload: STATS });
    });
    registerVmiStats(
      registry,
      'local',
      { running: () => running, client: () => Promise.resolve(client) },
      nopLogger,
    );
    const first = await registry.metrics();
    expect(asked).toBe(1);
    expect(first).toContain(
      'kubevirt_vmi_cpu_usage_seconds_total{namespace="ns1",name="tiny",node="local"} 2.5',
    );
    expect(first).toContain(
      'kubevirt_vmi_network_transmit_bytes_total{namespace="ns1",name="tiny",node="local",interface="tap0"} 7',
    );
    // A second scrape reports the same totals, not their sum.
    expect(await registry.metrics()).toContain(
      'kubevirt_vmi_cpu_usage_seconds_total{namespace="ns1",name="tiny",node="local"} 2.5',
    );
    running = [];
    expect(await registry.metrics()).not.toContain('name="tiny"');
  });

  it('skips a launcher that fails or has no client, and reports the others', async () => {
    const registry = new Registry();
    const other = named('other');
    const good = fakeClient(() => Promise.resolve({ success: true, message: '', payload: STATS }));
    const broken = fakeClient(() => Promise.reject(new Error('unavailable')));
    const clients = new Map([
      [vm, broken],
      [other, good],
    ]);
    registerVmiStats(
      registry,
      'local',
      { running: () => [vm, other], client: (v) => Promise.resolve(clients.get(v)) },
      nopLogger,
    );
    const text = await registry.metrics();
    expect(text).toContain('name="other"');
    expect(text).not.toContain('name="tiny"');
  });
});
