/**
 * A keyed work queue with client-go semantics (`util/workqueue/{queue,delaying_queue,rate_limiting_queue}.go`):
 * - `dirty` holds keys waiting to be processed: adding a waiting key again is a no-op;
 * - `processing` holds keys handed to a worker: such a key is never handed out twice at once; if it is added
 *   meanwhile it goes back in the queue when the worker calls done();
 * - delayed adds go through the Clock and are dropped on shutdown.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import { noopQueueMetrics } from './metrics.ts';
import type { QueueMetrics, WorkQueueMetrics } from './metrics.ts';
import { defaultControllerRateLimiter } from './rate-limiters.ts';
import type { RateLimiter } from './rate-limiters.ts';

export interface WorkQueueOptions<K> {
  /** Metric label, e.g. 'virt-controller-vmi'. */
  name: string;
  clock: Clock;
  /** Defaults to defaultControllerRateLimiter(clock). */
  rateLimiter?: RateLimiter<K>;
  metrics?: WorkQueueMetrics;
}

/** FIFO with amortised O(1) shift. */
class Fifo<K> {
  private items: K[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }
  push(key: K): void {
    this.items.push(key);
  }
  /** Caller checks length first. */
  shift(): K {
    const key = this.items[this.head++] as K;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }
}

export class WorkQueue<K = string> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter<K>;
  private readonly metrics: QueueMetrics<K>;
  private readonly fifo = new Fifo<K>();
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly delayed = new Map<K, { at: number; timer: TimerHandle }>();
  private waiters: ((key: K | undefined) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private shuttingDown = false;

  constructor(opts: WorkQueueOptions<K>) {
    this.name = opts.name;
    this.clock = opts.clock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>(opts.clock);
    this.metrics = opts.metrics?.forQueue<K>(opts.name, opts.clock) ?? noopQueueMetrics;
  }

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.add(key);
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.fifo.push(key);
    this.wake();
  }

  /** The next key to process (the caller must call done(key) after). Undefined once shut down and empty. */
  get(): Promise<K | undefined> {
    if (this.fifo.length > 0) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: K): void {
    if (!this.processing.delete(key)) return;
    this.metrics.done(key);
    if (this.dirty.has(key)) {
      this.fifo.push(key);
      this.wake();
    } else if (this.processing.size === 0) {
      this.releaseDrainWaiters();
    }
  }

  /** Keys waiting to be handed out (not counting keys being processed). */
  len(): number {
    return this.fifo.length;
  }

  /** Keys waiting or being processed (delayed adds not counted): 0 when the workers are idle. */
  active(): number {
    return this.fifo.length + this.processing.size;
  }

  /** Adds the key after ms. An earlier pending delayed add of the same key wins over a later one. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    this.metrics.retry();
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    pending?.timer.cancel();
    const timer = this.clock.after(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { at, timer });
  }

  addRateLimited(key: K): void {
    if (this.shuttingDown) return;
    this.addAfter(key, this.limiter.when(key));
  }

  /** The key succeeded: reset its backoff. */
  forget(key: K): void {
    this.limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.limiter.retries(key);
  }

  /** Stops accepting keys and drops delayed adds; waiting get() calls resolve once the queue is empty. */
  shutDown(): void {
    this.stop();
    this.releaseDrainWaiters();
  }

  /** Like shutDown, then waits until every key handed out has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.stop();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private stop(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) timer.cancel();
    this.delayed.clear();
    if (this.fifo.length > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  private take(): K {
    const key = this.fifo.shift();
    this.processing.add(key);
    this.dirty.delete(key);
    this.metrics.get(key);
    return key;
  }

  private wake(): void {
    while (this.fifo.length > 0) {
      const waiter = this.waiters.shift();
      if (!waiter) return;
      waiter(this.take());
    }
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}
