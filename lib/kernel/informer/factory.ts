/**
 * InformerFactory: one SharedInformer per key for the whole process, so every controller that watches
 * the same thing shares one cache and one watch (idea of kubevirt pkg/controller/virtinformers.go).
 * start() is idempotent: it starts each informer not started yet and can be called again after
 * informerFor() added more. `M` names the object type of each key's informer, so that every user of a key gets
 * the informer of the type it was made with.
 */
import type { KubeObject } from '../kube/types.ts';
import type { SharedInformer } from './informer.ts';

/** What the factory does with every informer, whatever it caches. */
type Lifecycle = Pick<SharedInformer<KubeObject>, 'run' | 'waitForSync' | 'hasSynced'>;

export class InformerFactory<M extends Record<string, KubeObject> = Record<string, KubeObject>> {
  private readonly made: { [K in keyof M]?: SharedInformer<M[K]> } = {};
  private readonly informers = new Map<string, Lifecycle>();
  private readonly runs = new Map<string, Promise<void>>();
  private signal: AbortSignal | undefined;

  /** The informer for key, created by make() on first use only. */
  informerFor<K extends keyof M & string>(key: K, make: () => SharedInformer<M[K]>): SharedInformer<M[K]> {
    const known = Object.hasOwn(this.made, key) ? this.made[key] : undefined;
    if (known !== undefined) return known;
    const inf = make();
    this.made[key] = inf;
    this.informers.set(key, inf);
    return inf;
  }

  keys(): string[] {
    return [...this.informers.keys()];
  }

  /** Starts every informer not started yet; all of them stop when the signal aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const [key, inf] of this.informers) {
      if (!this.runs.has(key)) this.runs.set(key, inf.run(signal));
    }
  }

  /** Resolves true when every informer created so far has synced, false if the signal aborts first. */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((inf) => inf.waitForSync(signal)));
    return results.every(Boolean);
  }

  hasSynced(): boolean {
    return [...this.informers.values()].every((inf) => inf.hasSynced());
  }

  /** Resolves when every started informer has stopped (after the start signal aborted). */
  async stopped(): Promise<void> {
    await Promise.all(this.runs.values());
  }

  /** True once start() was called with a signal that has not aborted. */
  get running(): boolean {
    return this.signal !== undefined && !this.signal.aborted;
  }
}
