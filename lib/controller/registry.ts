/**
 * The informer registry of the controller role: each controller declares the watches it reads (a resource, a
 * label selector, the indexes it looks up) and registers them; build() makes one SharedInformer per resource,
 * namespace and selector, with the indexes every declaring controller asked for, and each controller gets its
 * caches under its own names (kubevirt pkg/controller/virtinformers.go: one shared informer per resource,
 * handed to every controller that reads it). Informers are made in the order they were first declared.
 */
import type { Clock } from '../kernel/clock.ts';
import { InformerFactory } from '../kernel/informer/factory.ts';
import type { Indexer } from '../kernel/informer/index-funcs.ts';
import { SharedInformer } from '../kernel/informer/informer.ts';
import type { GroupVersionResource, KubeClient, KubeObject } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';

/** Where a namespaced resource is watched: the watched namespace(s), or the controller's own (the KubeVirt CR). */
export type WatchScope = 'watched' | 'config';

/** One resource a controller reads; T is the object type its cache holds. */
export interface Watch<T extends KubeObject> {
  readonly gvr: GroupVersionResource;
  readonly scope: WatchScope;
  readonly labelSelector?: string;
  /** The indexes the controller looks up; an index of the same name must be the same function everywhere. */
  readonly indexers: Readonly<Record<string, Indexer<T>>>;
}

export function watch<T extends KubeObject>(
  gvr: GroupVersionResource,
  opts: { scope?: WatchScope; labelSelector?: string; indexers?: Readonly<Record<string, Indexer<T>>> } = {},
): Watch<T> {
  return {
    gvr,
    scope: opts.scope ?? 'watched',
    ...(opts.labelSelector !== undefined && { labelSelector: opts.labelSelector }),
    indexers: opts.indexers ?? {},
  };
}

/** A controller's watches by the names it reads them under. */
export type Watches = Readonly<Record<string, Watch<never>>>;

/** The shared informers behind a controller's watches, under the same names. */
export type Caches<W extends Watches> = {
  readonly [K in keyof W]: W[K] extends Watch<infer T> ? SharedInformer<T> : never;
};

export interface Registration<W extends Watches> {
  readonly controller: string;
  /** The controller's informers; throws before the registry is built. */
  caches(): Caches<W>;
}

export interface InformerRegistryOptions {
  client: KubeClient;
  clock: Clock;
  log: Logger;
  resyncPeriodMs: number;
  /** The namespace a namespaced resource of that scope is watched in; undefined: every namespace. */
  namespaceOf(gvr: GroupVersionResource, scope: WatchScope): string | undefined;
}

interface Declared {
  readonly key: string;
  readonly gvr: GroupVersionResource;
  readonly namespace: string | undefined;
  readonly labelSelector: string | undefined;
  readonly indexers: Record<string, Indexer>;
  readonly by: string[];
}

const gvrName = (gvr: GroupVersionResource): string =>
  gvr.group === '' ? `${gvr.resource}/${gvr.version}` : `${gvr.resource}.${gvr.group}/${gvr.version}`;

function keyOf(t: Pick<Declared, 'gvr' | 'namespace' | 'labelSelector'>): string {
  return `${gvrName(t.gvr)} ns=${t.namespace ?? '*'} selector=${t.labelSelector ?? ''}`;
}

function describe(d: Pick<Declared, 'gvr' | 'namespace' | 'labelSelector'>): string {
  const ns = d.gvr.namespaced ? ` in ${d.namespace ?? 'every namespace'}` : '';
  const sel = d.labelSelector !== undefined ? ` with selector ${JSON.stringify(d.labelSelector)}` : '';
  return `${gvrName(d.gvr)}${ns}${sel}`;
}

export class InformerRegistry {
  private readonly declared = new Map<string, Declared>();
  /** controller → watch name → informer key. */
  private readonly controllers = new Map<string, Map<string, string>>();
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private built: InformerFactory | undefined;

  constructor(private readonly opts: InformerRegistryOptions) {}

  /**
   * Declares controller's watches. Throws for a controller registered twice or after build(), and for an index
   * name that another declaration of the same informer gives a different function.
   */
  register<W extends Watches>(controller: string, watches: W): Registration<W> {
    if (this.built !== undefined) throw new Error(`informer registry: ${controller} registered after build`);
    if (this.controllers.has(controller))
      throw new Error(`informer registry: ${controller} registered twice`);
    const names = new Map<string, string>();
    const staged = new Map<string, { d: Declared; indexers: Record<string, Indexer> }>();
    for (const [name, w] of Object.entries(watches) as [string, Watch<KubeObject>][]) {
      const target = this.target(w);
      const key = keyOf(target);
      let s = staged.get(key);
      if (s === undefined) {
        const d = this.declared.get(key) ?? { ...target, key, indexers: {}, by: [] };
        s = { d, indexers: { ...d.indexers } };
        staged.set(key, s);
      }
      for (const [index, fn] of Object.entries(w.indexers)) {
        const had = s.indexers[index];
        if (had !== undefined && had !== fn) {
          const others = s.d.by.length > 0 ? s.d.by.join(', ') : `its own other watch`;
          throw new Error(
            `informer registry: ${controller} gives index ${JSON.stringify(index)} of ${describe(target)} ` +
              `another function than ${others}`,
          );
        }
        s.indexers[index] = fn;
      }
      names.set(name, key);
    }
    for (const { d, indexers } of staged.values()) {
      Object.assign(d.indexers, indexers);
      d.by.push(controller);
      this.declared.set(d.key, d);
    }
    this.controllers.set(controller, names);
    return { controller, caches: () => this.caches(names) as Caches<W> };
  }

  /** Makes the shared informers (once); the returned factory starts them and waits for their sync. */
  build(): InformerFactory {
    if (this.built !== undefined) return this.built;
    const factory = new InformerFactory();
    const { client, clock, log, resyncPeriodMs } = this.opts;
    for (const d of this.declared.values()) {
      const inf = factory.informerFor(
        d.key,
        () =>
          new SharedInformer<KubeObject>({
            client,
            clock,
            log,
            resyncPeriodMs,
            gvr: d.gvr,
            ...(d.namespace !== undefined && { namespace: d.namespace }),
            ...(d.labelSelector !== undefined && { labelSelector: d.labelSelector }),
            ...(Object.keys(d.indexers).length > 0 && { indexers: d.indexers }),
          }),
      );
      this.informers.set(d.key, inf);
    }
    this.built = factory;
    return factory;
  }

  /**
   * The informer of gvr, narrowed by namespace (undefined: every namespace) and label selector (undefined:
   * none) when given. Throws before build(), and when no declared informer or more than one matches.
   */
  informer(
    gvr: GroupVersionResource,
    opts: { namespace?: string | undefined; labelSelector?: string | undefined } = {},
  ): SharedInformer<KubeObject> {
    this.mustBeBuilt();
    const matches = [...this.declared.values()].filter(
      (d) =>
        gvrName(d.gvr) === gvrName(gvr) &&
        (!('namespace' in opts) || d.namespace === opts.namespace) &&
        (!('labelSelector' in opts) || d.labelSelector === opts.labelSelector),
    );
    const [only, ...more] = matches;
    if (only === undefined) {
      const known = [...this.declared.values()].map(describe).join('; ') || 'none';
      throw new Error(`informer registry: no informer for ${gvrName(gvr)} (declared: ${known})`);
    }
    if (more.length > 0) {
      throw new Error(
        `informer registry: ${String(matches.length)} informers for ${gvrName(gvr)}, name its namespace or ` +
          `selector (${matches.map(describe).join('; ')})`,
      );
    }
    return this.informerOf(only.key);
  }

  /** The informers declared so far, in the order they are made: what, the index names, who reads them. */
  declarations(): { informer: string; indexes: string[]; by: string[] }[] {
    return [...this.declared.values()].map((d) => ({
      informer: describe(d),
      indexes: Object.keys(d.indexers),
      by: [...d.by],
    }));
  }

  private caches(names: ReadonlyMap<string, string>): Record<string, SharedInformer<KubeObject>> {
    this.mustBeBuilt();
    const out: Record<string, SharedInformer<KubeObject>> = {};
    for (const [name, key] of names) out[name] = this.informerOf(key);
    return out;
  }

  private mustBeBuilt(): void {
    if (this.built === undefined) throw new Error('informer registry: not built yet');
  }

  private informerOf(key: string): SharedInformer<KubeObject> {
    const inf = this.informers.get(key);
    if (inf === undefined) throw new Error(`informer registry: no informer ${key}`);
    return inf;
  }

  private target(w: Watch<KubeObject>): Pick<Declared, 'gvr' | 'namespace' | 'labelSelector'> {
    return {
      gvr: w.gvr,
      namespace: w.gvr.namespaced ? this.opts.namespaceOf(w.gvr, w.scope) : undefined,
      labelSelector: w.labelSelector,
    };
  }
}
