/**
 * The informer cache: objects keyed `ns/name` (or `name`), with secondary indexes.
 *
 * Objects handed out by get/list/byIndex are the cached instances themselves, shared by every reader:
 * NEVER mutate them; `structuredClone` first. With `freeze: true` (tests, development) every object is
 * deep-frozen on insert, so a mutation throws instead of silently corrupting the cache.
 */
import type { KubeObject } from '../kube/types.ts';
import { deepFreeze, objectKey, type Indexer } from './index-funcs.ts';

export interface StoreOptions<T extends KubeObject> {
  indexers?: Readonly<Record<string, Indexer<T>>>;
  /** Deep-freeze objects on insert (mutation by a caller then throws). */
  freeze?: boolean;
}

/** Read access to the cache, what controllers get. */
export interface StoreReader<T extends KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  listKeys(): string[];
  byIndex(indexName: string, value: string): T[];
  readonly size: number;
}

export class Store<T extends KubeObject> implements StoreReader<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Readonly<Record<string, Indexer<T>>>;
  /** indexName → index value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly freeze: boolean;
  private rv = '';

  constructor(opts: StoreOptions<T> = {}) {
    this.indexers = opts.indexers ?? {};
    this.freeze = opts.freeze ?? false;
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
  }

  /** Adds or replaces the object under its key; returns the previous one. */
  add(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    const stored = this.freeze ? deepFreeze(obj) : obj;
    this.items.set(key, stored);
    this.index(key, stored);
    return old;
  }

  update(obj: T): T | undefined {
    return this.add(obj);
  }

  /** Removes the object with the same key; returns what was cached. */
  delete(obj: T): T | undefined {
    return this.deleteKey(objectKey(obj));
  }

  deleteKey(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /** Replaces the whole content (after a list) and records the list's resourceVersion. */
  replace(list: readonly T[], resourceVersion: string): void {
    this.items.clear();
    for (const idx of this.indices.values()) idx.clear();
    for (const obj of list) this.add(obj);
    this.rv = resourceVersion;
  }

  /** resourceVersion of the last replace(). */
  get listResourceVersion(): string {
    return this.rv;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /** Objects whose index function returned `value`; throws for an unknown index name. */
  byIndex(indexName: string, value: string): T[] {
    const idx = this.indices.get(indexName);
    if (!idx) throw new Error(`no index named ${indexName}`);
    const keys = idx.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.items.get(k);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Index values currently present for an index (e.g. every node name seen). */
  indexValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name);
      if (!idx) continue;
      for (const v of fn(obj)) {
        let keys = idx.get(v);
        if (!keys) idx.set(v, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name);
      if (!idx) continue;
      for (const v of fn(obj)) {
        const keys = idx.get(v);
        keys?.delete(key);
        if (keys?.size === 0) idx.delete(v);
      }
    }
  }
}
