/**
 * KubeClient over HTTP (node:http, through HttpTransport). Objects are plain JSON, so built-in kinds and CRDs
 * take the same path.
 * Every call but a watch goes through the client-side token bucket; a watch is a streaming GET decoded line by
 * line as it arrives, and ends quietly when its signal aborts.
 */
import { KvError } from '../errors/errors.ts';
import type { RestConfig } from './config.ts';
import { HttpTransport, type HttpTransportOptions, type Query } from './http-transport.ts';
import { gvrPath } from './resources.ts';
import type {
  DeleteOptions,
  GroupVersionResource,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectList,
  PatchOptions,
  PatchType,
  RawRequest,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './types.ts';
import { decodeWatchStream } from './watch-decoder.ts';

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // Server-side apply takes YAML; JSON is valid YAML.
  apply: 'application/apply-patch+yaml',
};

export type HttpKubeClientOptions = HttpTransportOptions;

export class HttpKubeClient implements KubeClient {
  private readonly http: HttpTransport;

  constructor(config: RestConfig, opts: HttpKubeClientOptions = {}) {
    this.http = new HttpTransport(config, opts);
  }

  async get<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    opts: { namespace?: string } = {},
  ): Promise<T> {
    return await this.http.call<T>({ method: 'GET', path: objectPath(gvr, opts.namespace, name) });
  }

  async list<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const query: Query = {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
    };
    return await this.http.call<ObjectList<T>>({
      method: 'GET',
      path: gvrPath(gvr, { namespace: opts.namespace }),
      query,
    });
  }

  async create<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata.namespace;
    // POST to a subresource (pods/eviction, .../binding) names the parent object.
    const path =
      opts.subresource === undefined
        ? collectionPath(gvr, namespace)
        : objectPath(gvr, namespace, requireName(obj, gvr), opts.subresource);
    return await this.http.call<T>({ method: 'POST', path, query: writeQuery(opts), body: obj });
  }

  async update<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const path = objectPath(
      gvr,
      opts.namespace ?? obj.metadata.namespace,
      requireName(obj, gvr),
      opts.subresource,
    );
    return await this.http.call<T>({ method: 'PUT', path, query: writeQuery(opts), body: obj });
  }

  async patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const query: Query = { ...writeQuery(opts), force: opts.type === 'apply' ? opts.force : undefined };
    return await this.http.call<T>({
      method: 'PATCH',
      path: objectPath(gvr, opts.namespace, name, opts.subresource),
      query,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[opts.type],
    });
  }

  async delete(gvr: GroupVersionResource, name: string, opts: DeleteOptions = {}): Promise<void> {
    const { namespace, ...rest } = opts;
    const body =
      Object.keys(rest).length > 0 ? { apiVersion: 'v1', kind: 'DeleteOptions', ...rest } : undefined;
    await this.http.call({ method: 'DELETE', path: objectPath(gvr, namespace, name), body });
  }

  async *watch<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: WatchOptions,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent<T>, void, undefined> {
    if (signal.aborted) return;
    const query: Query = {
      watch: true,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      resourceVersion: opts.resourceVersion,
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
    };
    const path = gvrPath(gvr, { namespace: opts.namespace });
    let res;
    try {
      res = await this.http.send({ method: 'GET', path, query, signal, stream: true });
    } catch (err) {
      if (aborted(signal)) return;
      throw err;
    }
    try {
      yield* decodeWatchStream<T>(res.body);
    } catch (err) {
      if (aborted(signal)) return;
      if (err instanceof KvError) throw err;
      throw new KvError('KV_ERR_TRANSPORT', `watch ${path}: stream broke`, { cause: err });
    } finally {
      // A consumer that stops early (or an abort) drops the connection instead of draining it.
      res.body.destroy();
    }
  }

  async request<T = unknown>(req: RawRequest): Promise<T> {
    return await this.http.call<T>({
      method: req.method,
      path: req.path,
      query: req.query,
      body: req.body,
      contentType: req.contentType,
      signal: req.signal,
    });
  }

  /** Closes idle connections and waits for calls in flight. */
  close(): Promise<void> {
    return this.http.close();
  }

  /** Closes every connection at once, watches included. */
  destroy(): Promise<void> {
    return this.http.destroy();
  }
}

/** Read through a call so the compiler does not assume an earlier check still holds after an await. */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function writeQuery(opts: WriteOptions): Query {
  return { dryRun: opts.dryRun ? 'All' : undefined, fieldManager: opts.fieldManager };
}

function requireName(obj: KubeObject, gvr: GroupVersionResource): string {
  const name = obj.metadata.name;
  if (!name) throw new KvError('KV_ERR_INTERNAL', `${gvr.resource}: the object has no metadata.name`);
  return name;
}

function requireNamespace(gvr: GroupVersionResource, namespace: string | undefined): void {
  if (gvr.namespaced && !namespace) {
    throw new KvError('KV_ERR_INTERNAL', `${gvr.resource} is namespaced: give a namespace`);
  }
}

function collectionPath(gvr: GroupVersionResource, namespace: string | undefined): string {
  requireNamespace(gvr, namespace);
  return gvrPath(gvr, { namespace });
}

function objectPath(
  gvr: GroupVersionResource,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  requireNamespace(gvr, namespace);
  if (!name) throw new KvError('KV_ERR_INTERNAL', `${gvr.resource}: empty object name`);
  return gvrPath(gvr, { namespace, name, subresource });
}
