/**
 * Reflector: keeps a sink in step with the API server by list + watch (behaviour of client-go
 * tools/cache reflector.go, own code):
 * - paged list, then watch from the list's resourceVersion with bookmarks and a random 5–10 min server timeout;
 * - a watch that ends normally resumes from the last resourceVersion seen (events and bookmarks);
 * - 410 Gone (HTTP error or ERROR event) → relist; any other error → jittered exponential backoff, then retry;
 * - no event, not even a bookmark, for inactivityTimeoutMs → that watch is dropped and resumed;
 * - it never stops by itself; aborting the signal ends run() quietly.
 */
import { realClock, type Clock } from '../clock.ts';
import { errorMessage, isGone, KvError, StatusError } from '../errors/errors.ts';
import type {
  GroupVersionResource,
  KubeClient,
  KubeObject,
  WatchEvent,
  WatchOptions,
} from '../kube/types.ts';
import { nopLogger, type Logger } from '../log/log.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { listAllPages } from './pager.ts';
import { watchWithInactivity } from './watch-guard.ts';

/** Receives the reflector's output: a whole list, then one call per watch event. */
export interface ReflectorSink<T extends KubeObject> {
  replace(items: T[], resourceVersion: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
}

export interface ReflectorOptions<T extends KubeObject> {
  client: KubeClient;
  gvr: GroupVersionResource;
  sink: ReflectorSink<T>;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** List page size (default 500). */
  pageSize?: number;
  clock?: Clock;
  log?: Logger;
  /** Random source in [0, 1) for the watch timeout and backoff jitter. */
  random?: () => number;
  backoff?: Omit<BackoffOptions, 'random'>;
  /** Drop a watch that delivered nothing for this long (default 3 min; bookmarks arrive about every minute). */
  inactivityTimeoutMs?: number;
  /** Server-side watch timeout is random in [min, 2·min) seconds (default 300, as client-go). */
  minWatchTimeoutSeconds?: number;
}

export interface ReflectorStats {
  /** Complete lists delivered to the sink. */
  lists: number;
  /** Lists forced by 410 Gone. */
  relists: number;
  /** Watch requests opened. */
  watches: number;
  /** Failures that went through backoff. */
  failures: number;
}

/** A watch that ends with no event this soon after opening counts as a failure (avoids a hot loop). */
const SHORT_WATCH_MS = 1000;

export class Reflector<T extends KubeObject> {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private rv = '';
  private needList = true;
  /** True from a list until the first event of the watch that follows it. */
  private freshList = false;
  private readonly counters: ReflectorStats = { lists: 0, relists: 0, watches: 0, failures: 0 };

  constructor(private readonly opts: ReflectorOptions<T>) {
    this.clock = opts.clock ?? realClock;
    this.log = (opts.log ?? nopLogger).with({ resource: opts.gvr.resource });
    this.random = opts.random ?? Math.random;
    this.backoff = new Backoff(this.clock, { ...opts.backoff, random: this.random });
  }

  /** resourceVersion of the last list, event or bookmark ('' before the first list). */
  get lastSyncResourceVersion(): string {
    return this.rv;
  }

  get stats(): Readonly<ReflectorStats> {
    return { ...this.counters };
  }

  /**
   * Lists and watches until the signal aborts; never rejects. A later run() resumes from the last
   * resourceVersion (relisting if the server no longer has it).
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.step(signal);
      } catch (err) {
        await this.recover(err, signal);
      }
    }
  }

  /** After a failure: 410 on a watch → relist; anything else → backoff. */
  private async recover(err: unknown, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    if (isGone(err) && !this.needList) {
      this.log.info('resourceVersion too old, relisting', { resourceVersion: this.rv });
      this.needList = true;
      this.counters.relists++;
      // a watch that fails with 410 straight after a list relists only after a backoff
      if (!this.freshList) return;
    }
    await this.wait(err, signal);
  }

  private async step(signal: AbortSignal): Promise<void> {
    if (this.needList) {
      await this.list(signal);
      if (signal.aborted) return;
    }
    await this.watch(signal);
  }

  private async list(signal: AbortSignal): Promise<void> {
    const { client, gvr, namespace, labelSelector, fieldSelector } = this.opts;
    const base = { ...(namespace && { namespace }), ...(labelSelector && { labelSelector }) };
    const result = await listAllPages<T>(
      {
        client,
        gvr,
        base: { ...base, ...(fieldSelector && { fieldSelector }) },
        pageSize: this.opts.pageSize ?? 500,
        log: this.log,
      },
      signal,
    );
    if (!result) return;
    this.opts.sink.replace(result.items, result.resourceVersion);
    this.rv = result.resourceVersion;
    this.needList = false;
    this.freshList = true;
    this.counters.lists++;
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const min = this.opts.minWatchTimeoutSeconds ?? 300;
    const opts: WatchOptions = {
      resourceVersion: this.rv,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.floor(min * (1 + this.random())),
      ...(this.opts.namespace && { namespace: this.opts.namespace }),
      ...(this.opts.labelSelector && { labelSelector: this.opts.labelSelector }),
      ...(this.opts.fieldSelector && { fieldSelector: this.opts.fieldSelector }),
    };
    this.counters.watches++;
    const started = this.clock.now();
    const outcome = await watchWithInactivity<T>({
      clock: this.clock,
      inactivityMs: this.opts.inactivityTimeoutMs ?? 180_000,
      open: (s) => this.opts.client.watch<T>(this.opts.gvr, opts, s),
      onEvent: (ev) => {
        this.apply(ev);
      },
      signal,
    });
    if (signal.aborted) return;
    if (outcome.inactive) {
      this.log.info('watch inactive, resuming', { resourceVersion: this.rv });
      return;
    }
    if (outcome.events === 0 && this.clock.now() - started < SHORT_WATCH_MS) {
      throw new KvError('KV_ERR_TRANSPORT', 'watch closed before any event');
    }
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === 'ERROR') throw new StatusError(ev.object);
    this.freshList = false;
    switch (ev.type) {
      case 'ADDED':
        this.opts.sink.add(ev.object);
        break;
      case 'MODIFIED':
        this.opts.sink.update(ev.object);
        break;
      case 'DELETED':
        this.opts.sink.delete(ev.object);
        break;
      case 'BOOKMARK':
        break;
    }
    const rv = ev.object.metadata.resourceVersion;
    if (rv) this.rv = rv;
  }

  private async wait(err: unknown, signal: AbortSignal): Promise<void> {
    this.counters.failures++;
    const delay = this.backoff.next();
    this.log.warning('list/watch failed, backing off', {
      reason: errorMessage(err),
      delayMs: delay,
      listing: this.needList,
    });
    try {
      await this.clock.sleep(delay, signal);
    } catch {
      // aborted: run() sees the signal and returns
    }
  }
}
