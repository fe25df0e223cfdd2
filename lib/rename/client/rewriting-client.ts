/**
 * The rewriter rules around an in-process KubeClient (no sidecar): a caller speaks kubevirt.io, the inner
 * client sees the internal names. Resources, selectors and bodies are renamed on the way in; objects, lists,
 * watch events and Status errors are restored on the way out; an object of an original kind is hidden (404 on
 * get, left out of lists and watches). Resources outside the rules keep their bodies untouched, as in the proxy.
 */
import { isStatus, StatusError } from '../../kernel/errors/errors.ts';
import { gvrPath } from '../../kernel/kube/resources.ts';
import type {
  DeleteOptions,
  GroupVersionResource,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectList,
  PatchOptions,
  RawRequest,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../../kernel/kube/types.ts';
import { renameContext, restoreContext, type RewriteContext } from '../context.ts';
import { rewriteDocument } from '../document.ts';
import { isSkip } from '../json.ts';
import { notFoundStatus } from '../not-found.ts';
import { patchTargetOf } from '../patch-target.ts';
import { rewritePatch, type PatchType } from '../patch.ts';
import type { RuleIndex } from '../rules/rule-index.ts';
import { parseTarget, type ApiTarget } from '../target.ts';
import { rewriteTarget, shouldRewriteBodies } from '../target-rewrite.ts';
import { watchEvents } from './watch-events.ts';

type Selectors = Pick<ListOptions, 'labelSelector' | 'fieldSelector'>;

export function rewritingClient(inner: KubeClient, index: RuleIndex): KubeClient {
  return new RewritingClient(inner, index);
}

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

class RewritingClient implements KubeClient {
  private readonly rename: RewriteContext;
  private readonly restore: RewriteContext;

  constructor(
    private readonly inner: KubeClient,
    private readonly index: RuleIndex,
  ) {
    this.rename = renameContext(index);
    this.restore = restoreContext(index);
  }

  async get<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    opts: { namespace?: string } = {},
  ): Promise<T> {
    const t = this.target(gvr, { namespace: opts.namespace, name });
    return this.restored(t, await this.call(() => this.inner.get(this.renamedGvr(gvr), name, opts))) as T;
  }

  async list<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const t = this.target(gvr, { namespace: opts.namespace });
    const list = await this.call(() =>
      this.inner.list(this.renamedGvr(gvr), { ...opts, ...this.renamedSelectors(gvr, opts) }),
    );
    return this.restored(t, list) as ObjectList<T>;
  }

  async create<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const t = this.target(gvr, { namespace: opts.namespace ?? obj.metadata.namespace });
    const body = this.renamedBody(t, obj);
    return this.restored(t, await this.call(() => this.inner.create(this.renamedGvr(gvr), body, opts))) as T;
  }

  async update<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const t = this.target(gvr, {
      namespace: opts.namespace ?? obj.metadata.namespace,
      name: obj.metadata.name,
      subresource: opts.subresource,
    });
    const body = this.renamedBody(t, obj);
    return this.restored(t, await this.call(() => this.inner.update(this.renamedGvr(gvr), body, opts))) as T;
  }

  async patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const t = this.target(gvr, { namespace: opts.namespace, name, subresource: opts.subresource });
    const body = shouldRewriteBodies(t, this.index)
      ? rewritePatch(patch, opts.type, patchTargetOf(t, this.index), this.rename)
      : patch;
    const out = await this.call(() => this.inner.patch(this.renamedGvr(gvr), name, body, opts));
    return this.restored(t, out) as T;
  }

  async delete(gvr: GroupVersionResource, name: string, opts: DeleteOptions = {}): Promise<void> {
    await this.call(() => this.inner.delete(this.renamedGvr(gvr), name, opts));
  }

  watch<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: WatchOptions,
    signal: AbortSignal,
  ): AsyncIterable<WatchEvent<T>> {
    const t = this.target(gvr, { namespace: opts.namespace });
    const events = this.inner.watch<T>(
      this.renamedGvr(gvr),
      { ...opts, ...this.renamedSelectors(gvr, opts) },
      signal,
    );
    return watchEvents<T>(events, shouldRewriteBodies(t, this.index) ? this.restore : undefined, (err) =>
      this.restoredError(err),
    );
  }

  async request<T = unknown>(req: RawRequest): Promise<T> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) query.append(k, String(v));
    const t = parseTarget(query.size === 0 ? req.path : `${req.path}?${query.toString()}`, this.index);
    const up = rewriteTarget(t, this.rename);
    const patchType = req.method === 'PATCH' ? PATCH_TYPES[req.contentType ?? ''] : undefined;
    let body = req.body;
    if (body !== undefined && shouldRewriteBodies(t, this.index))
      body =
        patchType === undefined
          ? rewriteDocument(body, this.rename)
          : rewritePatch(body, patchType, patchTargetOf(t, this.index), this.rename);
    const out = await this.call(() =>
      this.inner.request({
        ...req,
        path: up.path,
        query: Object.fromEntries(new URLSearchParams(up.query)),
        body,
      }),
    );
    return this.restored(t, out) as T;
  }

  /** The client-side target of a call (original names), as the proxy would parse it. */
  private target(
    gvr: GroupVersionResource,
    parts: { namespace?: string | undefined; name?: string | undefined; subresource?: string | undefined },
  ): ApiTarget {
    return parseTarget(gvrPath(gvr, parts), this.index);
  }

  private renamedGvr(gvr: GroupVersionResource): GroupVersionResource {
    const entry = this.index.resourceByOriginal.get(`${gvr.group}/${gvr.resource}`);
    if (entry === undefined) return gvr;
    const rules = this.index.rules;
    return {
      ...gvr,
      group: entry.group.renamed,
      resource: rules.resourceTypePrefix + entry.resource.plural,
      kind: rules.kindPrefix + entry.resource.kind,
    };
  }

  private renamedSelectors(gvr: GroupVersionResource, selectors: Selectors): Selectors {
    const query = new URLSearchParams();
    if (selectors.labelSelector !== undefined) query.set('labelSelector', selectors.labelSelector);
    if (selectors.fieldSelector !== undefined) query.set('fieldSelector', selectors.fieldSelector);
    if (query.size === 0) return {};
    const up = rewriteTarget(parseTarget(`${gvrPath(gvr)}?${query.toString()}`, this.index), this.rename);
    const renamed = new URLSearchParams(up.query);
    const out: Selectors = {};
    const label = renamed.get('labelSelector');
    const field = renamed.get('fieldSelector');
    if (label !== null) out.labelSelector = label;
    if (field !== null) out.fieldSelector = field;
    return out;
  }

  private renamedBody(t: ApiTarget, obj: KubeObject): KubeObject {
    return shouldRewriteBodies(t, this.index) ? (rewriteDocument(obj, this.rename) as KubeObject) : obj;
  }

  /** The answer restored; an object the client must not see is a 404, as the API server would say it. */
  private restored(t: ApiTarget, out: unknown): unknown {
    if (!shouldRewriteBodies(t, this.index)) return out;
    const doc = rewriteDocument(out, this.restore);
    if (isSkip(doc)) throw new StatusError(notFoundStatus(t));
    return doc;
  }

  /** Runs a call of the inner client; its Status errors come back with original names. */
  private async call<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      throw this.restoredError(err);
    }
  }

  private restoredError(err: unknown): unknown {
    if (!(err instanceof StatusError)) return err;
    const before: unknown = err.status;
    const status = rewriteDocument(before, this.restore);
    if (!isStatus(status) || status === before) return err;
    return new StatusError(status, { cause: err });
  }
}
