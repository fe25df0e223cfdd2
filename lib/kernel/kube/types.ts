/**
 * The kube client contract every role codes against. Implemented over HTTP in client.ts; wrapped by the
 * rewriter rules later. Objects are plain JSON (no client-node models), so any resource, CRDs included,
 * goes through the same calls.
 */
import type { Status } from '../errors/errors.ts';

export interface GroupVersionResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural, lower-case resource name, e.g. 'pods'. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout of the watch; the stream then ends normally. */
  timeoutSeconds?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type WatchEvent<T extends KubeObject = KubeObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface WriteOptions {
  namespace?: string;
  subresource?: string;
  dryRun?: boolean;
  fieldManager?: string;
}

export interface PatchOptions extends WriteOptions {
  type: PatchType;
  /** Server-side apply only. */
  force?: boolean;
}

export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface RawRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. '/apis/coordination.k8s.io/v1/namespaces/x/leases/y'. */
  path: string;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export interface KubeClient {
  get<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    opts?: { namespace?: string },
  ): Promise<T>;
  list<T extends KubeObject>(gvr: GroupVersionResource, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT of the whole object (optimistic lock on metadata.resourceVersion); subresource 'status' for status. */
  update<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T>;
  delete(gvr: GroupVersionResource, name: string, opts?: DeleteOptions): Promise<void>;
  /**
   * Streams watch events as they arrive, one decoded JSON line at a time. Ends when the server closes the
   * stream or the signal aborts (then it ends quietly, without throwing). HTTP errors throw StatusError.
   */
  watch<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: WatchOptions,
    signal: AbortSignal,
  ): AsyncIterable<WatchEvent<T>>;
  /** Any other call (discovery, subresources); non-2xx answers throw StatusError. */
  request<T = unknown>(req: RawRequest): Promise<T>;
}
