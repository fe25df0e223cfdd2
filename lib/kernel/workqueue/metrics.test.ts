import { describe, it, expect } from '@jest/globals';
import { Registry } from 'prom-client';
import { FakeClock } from '../clock.ts';
import { WorkQueueMetrics, workQueueMetricsFor } from './metrics.ts';
import { WorkQueue } from './queue.ts';

/** The sample lines of a metric for one queue, e.g. ['kubevirt_workqueue_depth{name="q"} 1']. */
function samples(text: string, metric: string, queue: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(metric) && l.includes(`name="${queue}"`));
}

async function scenario(): Promise<{ text: string }> {
  const registry = new Registry();
  const clock = new FakeClock();
  const metrics = workQueueMetricsFor(registry);
  const q = new WorkQueue({ name: 'virt-controller-vmi', clock, metrics });
  const other = new WorkQueue({ name: 'virt-handler-vm', clock, metrics });
  other.add('x');

  q.add('a');
  q.add('b');
  q.add('a'); // deduplicated: not counted
  clock.advance(2000);
  await q.get(); // a waited 2 s
  clock.advance(3000);
  q.done('a'); // worked 3 s
  await q.get(); // b waited 5 s, still processing
  q.addAfter('c', 100); // one retry
  clock.advance(4000); // c added; b has run 4 s
  return { text: await registry.metrics() };
}

describe('WorkQueueMetrics', () => {
  it.each([
    ['kubevirt_workqueue_depth', ['kubevirt_workqueue_depth{name="virt-controller-vmi"} 1']],
    ['kubevirt_workqueue_adds_total', ['kubevirt_workqueue_adds_total{name="virt-controller-vmi"} 3']],
    ['kubevirt_workqueue_retries_total', ['kubevirt_workqueue_retries_total{name="virt-controller-vmi"} 1']],
    [
      'kubevirt_workqueue_queue_duration_seconds_sum',
      ['kubevirt_workqueue_queue_duration_seconds_sum{name="virt-controller-vmi"} 7'],
    ],
    [
      'kubevirt_workqueue_queue_duration_seconds_count',
      ['kubevirt_workqueue_queue_duration_seconds_count{name="virt-controller-vmi"} 2'],
    ],
    [
      'kubevirt_workqueue_work_duration_seconds_sum',
      ['kubevirt_workqueue_work_duration_seconds_sum{name="virt-controller-vmi"} 3'],
    ],
    [
      'kubevirt_workqueue_work_duration_seconds_count',
      ['kubevirt_workqueue_work_duration_seconds_count{name="virt-controller-vmi"} 1'],
    ],
    [
      'kubevirt_workqueue_longest_running_processor_seconds',
      ['kubevirt_workqueue_longest_running_processor_seconds{name="virt-controller-vmi"} 4'],
    ],
    [
      'kubevirt_workqueue_unfinished_work_seconds',
      ['kubevirt_workqueue_unfinished_work_seconds{name="virt-controller-vmi"} 4'],
    ],
  ])('%s has the expected value for the queue', async (metric, want) => {
    const { text } = await scenario();
    expect(samples(text, `${metric}{`, 'virt-controller-vmi')).toEqual(want);
  });

  it('keeps queues apart by name on one registry', async () => {
    const { text } = await scenario();
    expect(samples(text, 'kubevirt_workqueue_depth{', 'virt-handler-vm')).toEqual([
      'kubevirt_workqueue_depth{name="virt-handler-vm"} 1',
    ]);
    expect(samples(text, 'kubevirt_workqueue_adds_total{', 'virt-handler-vm')).toEqual([
      'kubevirt_workqueue_adds_total{name="virt-handler-vm"} 1',
    ]);
  });

  it('unfinished work sums all processing keys; longest is the oldest', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new WorkQueue({ name: 'q', clock, metrics: new WorkQueueMetrics(registry) });
    q.add('a');
    await q.get();
    clock.advance(1000);
    q.add('b');
    await q.get();
    clock.advance(500);
    const text = await registry.metrics();
    expect(samples(text, 'kubevirt_workqueue_unfinished_work_seconds{', 'q')).toEqual([
      'kubevirt_workqueue_unfinished_work_seconds{name="q"} 2',
    ]);
    expect(samples(text, 'kubevirt_workqueue_longest_running_processor_seconds{', 'q')).toEqual([
      'kubevirt_workqueue_longest_running_processor_seconds{name="q"} 1.5',
    ]);
  });

  it('workQueueMetricsFor returns one object per registry', () => {
    const r = new Registry();
    expect(workQueueMetricsFor(r)).toBe(workQueueMetricsFor(r));
    expect(workQueueMetricsFor(new Registry())).not.toBe(workQueueMetricsFor(r));
  });

  it('every registered name starts with kubevirt_workqueue_', async () => {
    const r = new Registry();
    workQueueMetricsFor(r);
    const names = (await r.getMetricsAsJSON()).map((m) => m.name);
    expect(names).toHaveLength(7);
    expect(names.every((n) => n.startsWith('kubevirt_workqueue_'))).toBe(true);
  });
});
