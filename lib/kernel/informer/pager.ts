/**
 * Paged list: follows continue tokens until the last page. A continue token that expired (410 Gone: etcd
 * compacted the snapshot the pages come from) restarts the list from scratch. All pages come from one
 * snapshot, so the first page's resourceVersion is the whole list's.
 */
import { isGone } from '../errors/errors.ts';
import type { GroupVersionResource, KubeClient, KubeObject, ListOptions } from '../kube/types.ts';
import type { Logger } from '../log/log.ts';

export interface PagedListRequest {
  client: KubeClient;
  gvr: GroupVersionResource;
  /** namespace and selectors; limit/continue are set here. */
  base: ListOptions;
  pageSize: number;
  log: Logger;
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

/** Returns undefined when the signal aborts between pages. */
export async function listAllPages<T extends KubeObject>(
  req: PagedListRequest,
  signal: AbortSignal,
): Promise<ListResult<T> | undefined> {
  for (;;) {
    const result = await listOnce<T>(req, signal);
    if (result !== 'expired') return result;
    req.log.info('continue token expired, restarting list', { resource: req.gvr.resource });
  }
}

async function listOnce<T extends KubeObject>(
  req: PagedListRequest,
  signal: AbortSignal,
): Promise<ListResult<T> | 'expired' | undefined> {
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let cont: string | undefined;
  do {
    if (signal.aborted) return undefined;
    const opts: ListOptions = { ...req.base, limit: req.pageSize };
    if (cont !== undefined) opts.continue = cont;
    let page;
    try {
      page = await req.client.list<T>(req.gvr, opts);
    } catch (err) {
      if (cont !== undefined && isGone(err)) return 'expired';
      throw err;
    }
    for (const item of page.items) items.push(item);
    resourceVersion ??= page.metadata.resourceVersion ?? '';
    cont = page.metadata.continue || undefined;
  } while (cont !== undefined);
  return { items, resourceVersion };
}
