/**
 * A KubeClient for informer unit tests, scripted by the test: list() answers through `onList`, every
 * watch() call becomes a FakeWatch the test feeds with send()/end()/fail(). A watch ends quietly when its
 * signal aborts, as the real client's does. Other calls throw.
 */
import { KvError } from '../../errors/errors.ts';
import type {
  GroupVersionResource,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '../../kube/types.ts';

type Item = { kind: 'event'; ev: WatchEvent } | { kind: 'end' } | { kind: 'error'; err: unknown };

export class FakeWatch {
  private readonly queue: Item[] = [];
  private wake: (() => void) | undefined;
  private done = false;

  constructor(
    readonly opts: WatchOptions,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.wake?.(), { once: true });
  }

  send(ev: WatchEvent): void {
    this.push({ kind: 'event', ev });
  }

  /** The server closes the stream normally. */
  end(): void {
    this.push({ kind: 'end' });
  }

  /** The stream breaks with err. */
  fail(err: unknown): void {
    this.push({ kind: 'error', err });
  }

  /** True once the stream has ended, failed, or its signal aborted. */
  get closed(): boolean {
    return this.done || this.signal.aborted;
  }

  private push(item: Item): void {
    this.queue.push(item);
    this.wake?.();
  }

  async *stream(): AsyncGenerator<WatchEvent> {
    try {
      for (;;) {
        if (this.signal.aborted) return;
        const item = this.queue.shift();
        if (!item) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (item.kind === 'end') return;
        if (item.kind === 'error') throw item.err;
        yield item.ev;
      }
    } finally {
      this.done = true;
    }
  }
}

export type ListAnswer = (opts: ListOptions, call: number) => ObjectList | Promise<ObjectList>;

export class FakeListWatchClient implements KubeClient {
  readonly lists: ListOptions[] = [];
  readonly watches: FakeWatch[] = [];
  /** Thrown by the next watch() call instead of opening a stream (then cleared). */
  watchError: Error | undefined;

  constructor(public onList: ListAnswer) {}

  /** The most recent watch (throws when none was opened). */
  get lastWatch(): FakeWatch {
    const w = this.watches.at(-1);
    if (!w) throw new Error('no watch opened');
    return w;
  }

  list<T extends KubeObject>(_gvr: GroupVersionResource, opts: ListOptions = {}): Promise<ObjectList<T>> {
    this.lists.push(opts);
    return Promise.resolve(this.onList(opts, this.lists.length)) as Promise<ObjectList<T>>;
  }

  watch<T extends KubeObject>(
    _gvr: GroupVersionResource,
    opts: WatchOptions,
    signal: AbortSignal,
  ): AsyncIterable<WatchEvent<T>> {
    if (this.watchError !== undefined) {
      const err = this.watchError;
      this.watchError = undefined;
      return {
        [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => ({ next: () => Promise.reject(err) }),
      };
    }
    const w = new FakeWatch(opts, signal);
    this.watches.push(w);
    return w.stream() as AsyncIterable<WatchEvent<T>>;
  }

  get(): Promise<never> {
    return this.unsupported();
  }
  create(): Promise<never> {
    return this.unsupported();
  }
  update(): Promise<never> {
    return this.unsupported();
  }
  patch(): Promise<never> {
    return this.unsupported();
  }
  delete(): Promise<never> {
    return this.unsupported();
  }
  request(): Promise<never> {
    return this.unsupported();
  }

  private unsupported(): Promise<never> {
    return Promise.reject(
      new KvError('KV_ERR_NOT_IMPLEMENTED', 'not supported by the fake list/watch client'),
    );
  }
}

/** Lets pending promise callbacks and I/O turns run. */
export async function flush(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** Waits (in event-loop turns, not time) until cond() holds; throws after `turns` turns. */
export async function until(cond: () => boolean, what = 'condition', turns = 500): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface TestObject extends KubeObject {
  spec?: { nodeName?: string };
  data?: Record<string, string>;
}

/** A namespaced test object `ns/name` at resourceVersion rv. */
export function obj(
  name: string,
  rv: string,
  extra: { namespace?: string; labels?: Record<string, string>; nodeName?: string } = {},
): TestObject {
  const o: TestObject = {
    metadata: { name, namespace: extra.namespace ?? 'default', resourceVersion: rv },
  };
  if (extra.labels) o.metadata.labels = extra.labels;
  if (extra.nodeName !== undefined) o.spec = { nodeName: extra.nodeName };
  return o;
}

/** One list page. */
export function page(items: KubeObject[], rv: string, cont?: string): ObjectList {
  return { metadata: { resourceVersion: rv, ...(cont !== undefined && { continue: cont }) }, items };
}
