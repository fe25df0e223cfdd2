/**
 * Kubernetes Events for what a user cares about (a VMI created, a VM stopped, a Pod that failed to create).
 * Events are best effort and never compete with the objects they describe: they wait in their own queue, at
 * most maxInFlight are written at a time (client-go's recorder also writes from its own goroutine), and while
 * `busy()` says the controllers have work (and for a quiet second after) they wait, each at most maxDelayMs
 * (60 s), so a burst of VM starts
 * gets its VMIs and Pods first and its Events right after. A failing Event is logged, never
 * fails a reconcile. The same event for the same object (reason and message) is written once per
 * dedupWindowMs, so a hot loop cannot flood the API (client-go aggregates repeats with PATCHes; skipping
 * them costs no write at all). Above maxQueued waiting events, new ones are dropped and counted.
 */
import { randomBytes } from 'node:crypto';
import type { Clock, TimerHandle } from '../clock.ts';
import { errorMessage } from '../errors/errors.ts';
import { EVENTS } from '../kube/resources.ts';
import type { KubeClient, KubeObject } from '../kube/types.ts';
import type { Logger } from '../log/log.ts';
import { rfc3339 } from './time.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

export interface RecordedEvent {
  kind: string;
  name: string;
  type: EventType;
  reason: string;
  message: string;
}

/** Keeps events in memory (tests). */
export class MemoryRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ kind: obj.kind ?? '', name: obj.metadata.name ?? '', type, reason, message });
  }
}

export interface ApiRecorderOptions {
  client: KubeClient;
  /** source.component, e.g. 'virtualmachine-controller'. */
  component: string;
  clock: Clock;
  log: Logger;
  dedupWindowMs?: number;
  /** Events written at once (default 2). */
  maxInFlight?: number;
  /** Events waiting at most (default 10000); more are dropped. */
  maxQueued?: number;
  /** True while the controllers have work: events then wait (until a quiet second), each at most maxDelayMs. */
  busy?: () => boolean;
  /** Longest an event waits for the controllers to go idle (default 60 s). */
  maxDelayMs?: number;
}

interface Waiting {
  namespace: string;
  ev: KubeObject;
  queuedAt: number;
}

const DEFAULT_DEDUP_MS = 5 * 60 * 1000;
const DEFAULT_MAX_DELAY_MS = 60_000;
/** The controllers count as idle once busy() has been false this long. */
const QUIET_MS = 1000;
/** How often held events look again whether the controllers went idle. */
const RECHECK_MS = 200;
const MAX_REMEMBERED = 4096;

export class ApiEventRecorder implements EventRecorder {
  private readonly seen = new Map<string, number>();
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private recheck: TimerHandle | undefined;
  /** When busy() last said true. */
  private busyAt: number | undefined;
  /** Events dropped because the queue was full. */
  dropped = 0;

  constructor(private readonly opts: ApiRecorderOptions) {}

  /** Events queued or being written. */
  get pending(): number {
    return this.waiting.length + this.inFlight;
  }

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const now = this.opts.clock.now();
    const { namespace = 'default', name = '', uid = '' } = obj.metadata;
    const key = `${uid}\u0000${type}\u0000${reason}\u0000${message}`;
    const last = this.seen.get(key);
    if (last !== undefined && now - last < (this.opts.dedupWindowMs ?? DEFAULT_DEDUP_MS)) return;
    this.remember(key, now);
    const ts = rfc3339(now);
    const ev = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name,
        namespace,
        uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      type,
      reason,
      message,
      source: { component: this.opts.component },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
    };
    if (this.waiting.length >= (this.opts.maxQueued ?? 10_000)) {
      this.dropped++;
      return;
    }
    this.waiting.push({ namespace, ev, queuedAt: now });
    this.pump();
  }

  private held(next: Waiting): boolean {
    const now = this.opts.clock.now();
    if (this.opts.busy?.() === true) this.busyAt = now;
    if (this.busyAt === undefined || now - this.busyAt >= QUIET_MS) return false;
    return now - next.queuedAt < (this.opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
  }

  private pump(): void {
    while (this.inFlight < (this.opts.maxInFlight ?? 2)) {
      const next = this.waiting[0];
      if (next === undefined) return;
      if (this.held(next)) {
        this.recheck ??= this.opts.clock.after(RECHECK_MS, () => {
          this.recheck = undefined;
          this.pump();
        });
        return;
      }
      this.waiting.shift();
      this.inFlight++;
      void this.opts.client
        .create(EVENTS, next.ev, { namespace: next.namespace })
        .catch((err: unknown) => {
          this.opts.log.warning('could not write event', {
            reason: errorMessage(err),
            name: next.ev.metadata.name,
          });
        })
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }

  private remember(key: string, now: number): void {
    this.seen.delete(key);
    this.seen.set(key, now);
    if (this.seen.size > MAX_REMEMBERED) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}
