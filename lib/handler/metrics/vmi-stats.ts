/**
 * The per-VMI metrics the handler exports from its launchers' GetDomainStats (kubevirt
 * pkg/monitoring/metrics/virt-handler/domainstats: names after the k8s container_* ones, base units):
 * vCPU time, memory, and block and network counters where libvirt has them. `vmiSamples` is pure; the
 * collector beside it asks each running VMI's launcher on every scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { LauncherClient } from '../../rpc/index.ts';

/**
 * The JSON GetDomainStats answers (lib/launcher/report/guest-json.ts domainStats; KubeVirt's stats.DomainStats):
 * every counter `X` comes with `XSet`, false when libvirt did not report it (then `X` is a meaningless 0).
 */
type Counters = Readonly<Record<string, number | boolean | string | undefined>>;
export interface DomainStatsJson {
  readonly Cpu?: Counters;
  readonly Memory?: Counters;
  readonly Vcpu?: readonly Counters[];
  readonly Block?: readonly Counters[];
  readonly Net?: readonly Counters[];
}

export interface Sample {
  readonly metric: keyof typeof METRICS;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const METRICS = {
  kubevirt_vmi_vcpu_seconds_total: { counter: true, help: 'vCPU time spent, per vCPU', labels: ['id'] },
  kubevirt_vmi_cpu_usage_seconds_total: { counter: true, help: 'CPU time the domain used', labels: [] },
  kubevirt_vmi_memory_resident_bytes: {
    counter: false,
    help: 'resident memory of the domain (QEMU RSS)',
    labels: [],
  },
  kubevirt_vmi_memory_available_bytes: { counter: false, help: 'memory the guest sees', labels: [] },
  kubevirt_vmi_memory_unused_bytes: { counter: false, help: 'memory the guest leaves unused', labels: [] },
  kubevirt_vmi_memory_balloon_bytes: { counter: false, help: 'current balloon size', labels: [] },
  kubevirt_vmi_storage_read_traffic_bytes_total: {
    counter: true,
    help: 'bytes read from a drive',
    labels: ['drive'],
  },
  kubevirt_vmi_storage_write_traffic_bytes_total: {
    counter: true,
    help: 'bytes written to a drive',
    labels: ['drive'],
  },
  kubevirt_vmi_storage_iops_read_total: {
    counter: true,
    help: 'read requests to a drive',
    labels: ['drive'],
  },
  kubevirt_vmi_storage_iops_write_total: {
    counter: true,
    help: 'write requests to a drive',
    labels: ['drive'],
  },
  kubevirt_vmi_network_receive_bytes_total: { counter: true, help: 'bytes received', labels: ['interface'] },
  kubevirt_vmi_network_transmit_bytes_total: { counter: true, help: 'bytes sent', labels: ['interface'] },
} as const;

const NS_PER_S = 1e9;
const KIB = 1024;

/** The counter `field` of `c` scaled by `scale`, or undefined when libvirt did not set it. */
function read(c: Counters | undefined, field: string, scale = 1): number | undefined {
  const v = c?.[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || c?.[`${field}Set`] === false) return undefined;
  return v * scale;
}

/** The samples of one VMI's statistics (labels namespace, name, node and the metric's own). */
export function vmiSamples(vmi: VirtualMachineInstance, node: string, s: DomainStatsJson): Sample[] {
  const base = { namespace: vmi.metadata.namespace ?? '', name: vmi.metadata.name ?? '', node };
  const out: Sample[] = [];
  const push = (
    metric: Sample['metric'],
    labels: Record<string, string>,
    value: number | undefined,
  ): void => {
    if (value !== undefined) out.push({ metric, labels, value });
  };
  push('kubevirt_vmi_cpu_usage_seconds_total', base, read(s.Cpu, 'Time', 1 / NS_PER_S));
  (s.Vcpu ?? []).forEach((v, i) => {
    push('kubevirt_vmi_vcpu_seconds_total', { ...base, id: String(i) }, read(v, 'Time', 1 / NS_PER_S));
  });
  push('kubevirt_vmi_memory_resident_bytes', base, read(s.Memory, 'RSS', KIB));
  push('kubevirt_vmi_memory_available_bytes', base, read(s.Memory, 'Available', KIB));
  push('kubevirt_vmi_memory_unused_bytes', base, read(s.Memory, 'Unused', KIB));
  push('kubevirt_vmi_memory_balloon_bytes', base, read(s.Memory, 'ActualBalloon', KIB));
  for (const b of s.Block ?? []) {
    const l = { ...base, drive: String(b['Name'] ?? '') };
    push('kubevirt_vmi_storage_read_traffic_bytes_total', l, read(b, 'RdBytes'));
    push('kubevirt_vmi_storage_write_traffic_bytes_total', l, read(b, 'WrBytes'));
    push('kubevirt_vmi_storage_iops_read_total', l, read(b, 'RdReqs'));
    push('kubevirt_vmi_storage_iops_write_total', l, read(b, 'WrReqs'));
  }
  for (const n of s.Net ?? []) {
    const l = { ...base, interface: String(n['Name'] ?? '') };
    push('kubevirt_vmi_network_receive_bytes_total', l, read(n, 'RxBytes'));
    push('kubevirt_vmi_network_transmit_bytes_total', l, read(n, 'TxBytes'));
  }
  return out;
}

export interface VmiStatsSource {
  /** The VMIs this node runs now. */
  running(): VirtualMachineInstance[];
  client(vmi: VirtualMachineInstance): Promise<Pick<LauncherClient, 'getDomainStats'> | undefined>;
}

/** Registers the per-VMI metrics; each scrape asks every running VMI's launcher for its statistics. */
export function registerVmiStats(
  registry: Registry,
  node: string,
  source: VmiStatsSource,
  log: Logger,
): void {
  const metrics = new Map<string, Counter | Gauge>();
  let pending: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    const samples: Sample[] = [];
    for (const vmi of source.running()) {
      try {
        const r = await (await source.client(vmi))?.getDomainStats();
        if (r?.success === true && r.payload !== undefined)
          samples.push(...vmiSamples(vmi, node, r.payload as DomainStatsJson));
      } catch (err) {
        log.v(3).info('no domain stats', { name: vmi.metadata.name, reason: errorMessage(err) });
      }
    }
    for (const m of metrics.values()) m.reset();
    for (const s of samples) {
      const m = metrics.get(s.metric);
      if (m instanceof Counter) m.inc(s.labels, s.value);
      else m?.set(s.labels, s.value);
    }
  };
  // One refresh serves every metric of the same scrape.
  const collect = async (): Promise<void> => {
    pending ??= refresh().finally(() => {
      pending = undefined;
    });
    await pending;
  };
  for (const [name, d] of Object.entries(METRICS)) {
    const labelNames = ['namespace', 'name', 'node', ...d.labels];
    const opts = { name, help: d.help, labelNames, registers: [registry], collect };
    metrics.set(name, d.counter ? new Counter(opts) : new Gauge(opts));
  }
}
