/**
 * SharedInformer: one reflector feeding one indexed cache, shared by any number of event handlers
 * (behaviour of client-go shared_informer.go, own code).
 * - onAdd / onUpdate(old, new) / onDelete; a relist delivers only what changed (update only when the
 *   resourceVersion moved) and deletes vanished objects with their last known state;
 * - hasSynced() turns true once the first complete list has been delivered;
 * - every resyncPeriodMs (±10 % jitter) onUpdate(obj, obj) for every cached object, so level-triggered
 *   controllers re-check.
 * Handlers run synchronously on the informer's turn: they should only enqueue keys. Objects given to
 * handlers and read from the store are shared: NEVER mutate them (`structuredClone` first).
 */
import { realClock, type Clock } from '../clock.ts';
import type { KubeObject } from '../kube/types.ts';
import { nopLogger, type Logger } from '../log/log.ts';
import { listDelta } from './delta.ts';
import type { Indexer } from './index-funcs.ts';
import { Reflector, type ReflectorOptions, type ReflectorStats } from './reflector.ts';
import { Store, type StoreReader } from './store.ts';

export interface EventHandler<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** The object's final state (from the watch), or the last known state when a relist found it gone. */
  onDelete?(obj: T): void;
}

export interface HandlerRegistration {
  remove(): void;
}

export interface SharedInformerOptions<T extends KubeObject> extends Omit<ReflectorOptions<T>, 'sink'> {
  indexers?: Readonly<Record<string, Indexer<T>>>;
  /** Deep-freeze cached objects (mutations throw); for tests and development. */
  freeze?: boolean;
  /** 0 or unset: no resync. */
  resyncPeriodMs?: number;
}

type Dispatch<T extends KubeObject> = (h: EventHandler<T>) => void;

export class SharedInformer<T extends KubeObject> {
  private readonly cache: Store<T>;
  private readonly reflector: Reflector<T>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private handlers: EventHandler<T>[] = [];
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly opts: SharedInformerOptions<T>) {
    this.clock = opts.clock ?? realClock;
    this.log = (opts.log ?? nopLogger).with({ informer: opts.gvr.resource });
    this.cache = new Store<T>({
      ...(opts.indexers && { indexers: opts.indexers }),
      freeze: opts.freeze ?? false,
    });
    this.reflector = new Reflector<T>({
      ...opts,
      sink: {
        replace: (items, rv): void => {
          this.onReplace(items, rv);
        },
        add: (obj): void => {
          this.onUpsert(obj);
        },
        update: (obj): void => {
          this.onUpsert(obj);
        },
        delete: (obj): void => {
          this.onDeleteEvent(obj);
        },
      },
    });
  }

  /** The cache, read-only; objects in it are shared and must not be mutated. */
  get store(): StoreReader<T> {
    return this.cache;
  }

  get lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion;
  }

  get stats(): Readonly<ReflectorStats> {
    return this.reflector.stats;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, false if the signal aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const waiter = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.syncWaiters.push(waiter);
    });
  }

  /** Adds a handler; objects already cached are delivered to it as adds first. */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    this.handlers.push(handler);
    for (const obj of this.cache.list()) this.call(handler, (h) => h.onAdd?.(obj));
    return {
      remove: (): void => {
        this.handlers = this.handlers.filter((h) => h !== handler);
      },
    };
  }

  /**
   * Lists, watches and resyncs until the signal aborts; never rejects. While running, a second call
   * returns the same promise; after a stop, run() resumes from the last resourceVersion.
   */
  run(signal: AbortSignal): Promise<void> {
    this.running ??= Promise.all([this.reflector.run(signal), this.resyncLoop(signal)]).then((): void => {
      this.running = undefined;
    });
    return this.running;
  }

  private onReplace(items: T[], rv: string): void {
    const delta = listDelta(this.cache, items);
    this.cache.replace(items, rv);
    for (const obj of delta.adds) this.dispatch((h) => h.onAdd?.(obj));
    for (const u of delta.updates) this.dispatch((h) => h.onUpdate?.(u.oldObj, u.newObj));
    for (const obj of delta.deletes) this.dispatch((h) => h.onDelete?.(obj));
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters) w();
      this.syncWaiters = [];
    }
  }

  private onUpsert(obj: T): void {
    const old = this.cache.add(obj);
    if (old) this.dispatch((h) => h.onUpdate?.(old, obj));
    else this.dispatch((h) => h.onAdd?.(obj));
  }

  private onDeleteEvent(obj: T): void {
    this.cache.delete(obj);
    this.dispatch((h) => h.onDelete?.(obj));
  }

  private async resyncLoop(signal: AbortSignal): Promise<void> {
    const period = this.opts.resyncPeriodMs ?? 0;
    if (period <= 0) return;
    const random = this.opts.random ?? Math.random;
    while (!signal.aborted) {
      try {
        await this.clock.sleep(period * (0.9 + 0.2 * random()), signal);
      } catch {
        return;
      }
      if (this.synced) this.resync();
    }
  }

  /** onUpdate(obj, obj) for every cached object. */
  resync(): void {
    for (const obj of this.cache.list()) this.dispatch((h) => h.onUpdate?.(obj, obj));
  }

  private dispatch(fn: Dispatch<T>): void {
    for (const h of this.handlers) this.call(h, fn);
  }

  private call(h: EventHandler<T>, fn: Dispatch<T>): void {
    try {
      fn(h);
    } catch (err) {
      this.log.error('event handler threw', { reason: err });
    }
  }
}
