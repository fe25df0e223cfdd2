/**
 * VMI phase metrics of the controller (kubevirt pkg/monitoring/metrics/virt-controller):
 * - kubevirt_vmi_phase_transition_time_from_creation_seconds{phase}: seconds from creationTimestamp to each
 *   phase the controller records;
 * - kubevirt_vmi_launcher_memory_overhead_bytes: the memory overhead of the launcher Pods created (a
 *   histogram; KubeVirt's per-VMI gauge would carry unbounded labels).
 */
import { Histogram, type Registry } from 'prom-client';

/** KubeVirt's buckets for phase transition times. */
const PHASE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 40, 50, 60, 90, 120, 180, 240, 480, 600, 800, 1000];
const OVERHEAD_BUCKETS = [128, 192, 256, 320, 384, 512, 768, 1024, 2048].map((mi) => mi * 2 ** 20);

export class VmiMetrics {
  private readonly fromCreation: Histogram<'phase'>;
  private readonly overhead: Histogram;

  constructor(registry: Registry) {
    this.fromCreation = new Histogram({
      name: 'kubevirt_vmi_phase_transition_time_from_creation_seconds',
      help: 'Histogram of VM phase transitions duration from creation time in seconds.',
      labelNames: ['phase'] as const,
      buckets: PHASE_BUCKETS,
      registers: [registry],
    });
    this.overhead = new Histogram({
      name: 'kubevirt_vmi_launcher_memory_overhead_bytes',
      help: 'Memory overhead added to the launcher Pods created, in bytes.',
      buckets: OVERHEAD_BUCKETS,
      registers: [registry],
    });
  }

  phaseReached(phase: string, creationTimestamp: string | undefined, nowMs: number): void {
    const created = creationTimestamp === undefined ? NaN : Date.parse(creationTimestamp);
    if (Number.isNaN(created)) return;
    this.fromCreation.observe({ phase }, Math.max(0, (nowMs - created) / 1000));
  }

  launcherOverhead(bytes: number): void {
    this.overhead.observe(bytes);
  }
}

const byRegistry = new WeakMap<Registry, VmiMetrics>();

/** The VmiMetrics of a registry, created on first use (metric names register once per registry). */
export function vmiMetricsFor(registry: Registry): VmiMetrics {
  let m = byRegistry.get(registry);
  if (m === undefined) {
    m = new VmiMetrics(registry);
    byRegistry.set(registry, m);
  }
  return m;
}
