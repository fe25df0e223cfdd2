/**
 * Work queue metrics with KubeVirt's names (kubevirt `metrics/common/workqueue/metrics.go`),
 * label `name` = the queue's name. One WorkQueueMetrics per Registry serves every queue of the process.
 */
import { Counter, Gauge, Histogram, exponentialBuckets } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Clock } from '../clock.ts';

/** What a queue reports; the queue calls these, never the prom-client objects directly. */
export interface QueueMetrics<K> {
  /** A key became dirty (was not already waiting). */
  add(key: K): void;
  /** A key was handed to a worker. */
  get(key: K): void;
  /** A worker finished with a key. */
  done(key: K): void;
  /** A delayed or rate-limited add. */
  retry(): void;
}

export const noopQueueMetrics: QueueMetrics<unknown> = {
  add: () => undefined,
  get: () => undefined,
  done: () => undefined,
  retry: () => undefined,
};

const LABELS = ['name'] as const;
/** 10 ns … 10 s, as client-go's workqueue metrics. */
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 10);

class QueueRecorder<K> implements QueueMetrics<K> {
  private readonly addTimes = new Map<K, number>();
  private readonly startTimes = new Map<K, number>();

  constructor(
    private readonly name: string,
    private readonly clock: Clock,
    private readonly m: WorkQueueMetrics,
  ) {}

  add(key: K): void {
    this.m.adds.inc({ name: this.name });
    this.m.depth.inc({ name: this.name });
    if (!this.addTimes.has(key)) this.addTimes.set(key, this.clock.now());
  }

  get(key: K): void {
    const now = this.clock.now();
    this.m.depth.dec({ name: this.name });
    this.startTimes.set(key, now);
    const addedAt = this.addTimes.get(key);
    if (addedAt === undefined) return;
    this.m.queueDuration.observe({ name: this.name }, (now - addedAt) / 1000);
    this.addTimes.delete(key);
  }

  done(key: K): void {
    const startedAt = this.startTimes.get(key);
    if (startedAt === undefined) return;
    this.m.workDuration.observe({ name: this.name }, (this.clock.now() - startedAt) / 1000);
    this.startTimes.delete(key);
  }

  retry(): void {
    this.m.retries.inc({ name: this.name });
  }

  /** Seconds of work in progress: the sum over processing keys, and the longest one. */
  unfinished(): { total: number; longest: number } {
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const start of this.startTimes.values()) {
      total += now - start;
      longest = Math.max(longest, now - start);
    }
    return { total: total / 1000, longest: longest / 1000 };
  }
}

export class WorkQueueMetrics {
  readonly depth: Gauge<'name'>;
  readonly adds: Counter<'name'>;
  readonly queueDuration: Histogram<'name'>;
  readonly workDuration: Histogram<'name'>;
  readonly retries: Counter<'name'>;
  private readonly queues = new Map<string, QueueRecorder<unknown>>();

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = LABELS;
    this.depth = new Gauge({
      name: 'kubevirt_workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames,
      registers,
    });
    this.adds = new Counter({
      name: 'kubevirt_workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames,
      registers,
    });
    this.queueDuration = new Histogram({
      name: 'kubevirt_workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      registers,
      buckets: DURATION_BUCKETS,
    });
    this.workDuration = new Histogram({
      name: 'kubevirt_workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames,
      registers,
      buckets: DURATION_BUCKETS,
    });
    this.retries = new Counter({
      name: 'kubevirt_workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames,
      registers,
    });
    const longest = new Gauge({
      name: 'kubevirt_workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames,
      registers,
      collect: (): void => {
        for (const [name, q] of this.queues) longest.set({ name }, q.unfinished().longest);
      },
    });
    const unfinished = new Gauge({
      name: 'kubevirt_workqueue_unfinished_work_seconds',
      help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
      labelNames,
      registers,
      collect: (): void => {
        for (const [name, q] of this.queues) unfinished.set({ name }, q.unfinished().total);
      },
    });
  }

  /** The recorder for one queue. A second queue with the same name replaces the first (e.g. after a restart). */
  forQueue<K>(name: string, clock: Clock): QueueMetrics<K> {
    const rec = new QueueRecorder<K>(name, clock, this);
    this.queues.set(name, rec);
    return rec;
  }
}

const byRegistry = new WeakMap<Registry, WorkQueueMetrics>();

/** The WorkQueueMetrics of a registry, created on first use (metric names register once per registry). */
export function workQueueMetricsFor(registry: Registry): WorkQueueMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = new WorkQueueMetrics(registry);
    byRegistry.set(registry, m);
  }
  return m;
}
