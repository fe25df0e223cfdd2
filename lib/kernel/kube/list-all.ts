/**
 * Lists every object of a resource page by page, following `continue` tokens. The resourceVersion returned is
 * the one of the list (the first page's snapshot, which all later pages share), the point a watch resumes from.
 */
import { KvError } from '../errors/errors.ts';
import type { GroupVersionResource, KubeClient, KubeObject, ListOptions } from './types.ts';

export interface ListAllOptions extends Omit<ListOptions, 'continue'> {
  /** Stops following pages after this many (a guard against a server that never ends); default 100 000. */
  maxPages?: number;
}

export interface ListAllResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

export async function listAll<T extends KubeObject>(
  client: Pick<KubeClient, 'list'>,
  gvr: GroupVersionResource,
  opts: ListAllOptions = {},
): Promise<ListAllResult<T>> {
  const { maxPages = 100_000, ...listOpts } = opts;
  const items: T[] = [];
  let resourceVersion = '';
  let cont: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const list = await client.list<T>(gvr, cont === undefined ? listOpts : { ...listOpts, continue: cont });
    items.push(...list.items);
    resourceVersion = list.metadata.resourceVersion ?? resourceVersion;
    cont = list.metadata.continue;
    if (!cont) return { items, resourceVersion };
  }
  throw new KvError('KV_ERR_INTERNAL', `list of ${gvr.resource} did not end after ${maxPages} pages`);
}
