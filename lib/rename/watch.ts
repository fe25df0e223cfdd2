/**
 * Watch events ({type, object}), one at a time as they arrive. BOOKMARK objects get only apiVersion and kind
 * rewritten (they are not full objects); ERROR objects are Status; a Table (a watch asked as=Table) has its rows
 * restored; an excluded object makes the event SKIP.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { RewriteContext } from './context.ts';
import { rewriteCustomResource } from './custom-resource.ts';
import type { ObjectType } from './exclude.ts';
import { getString, isRecord, isSkip, SKIP, type JsonRecord, type Skip } from './json.ts';
import { rewriteObject } from './object.ts';
import { restoreStatus } from './status.ts';
import { isTable, restoreTable } from './table.ts';

const WATCH_EVENT_TYPES: readonly string[] = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];

function rewriteEventObject(
  type: string,
  obj: JsonRecord,
  ctx: RewriteContext,
  objType?: ObjectType,
): JsonRecord | Skip {
  if (type !== 'ERROR' && WATCH_EVENT_TYPES.includes(type) && isTable(obj))
    return restoreTable(obj, ctx, objType ?? {});
  switch (type) {
    case 'BOOKMARK':
      return rewriteCustomResource(obj, ctx);
    case 'ERROR':
      return restoreStatus(obj, ctx);
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return rewriteObject(obj, ctx, objType);
    default:
      throw new KvError('KV_ERR_DECODE', `unknown watch event type ${JSON.stringify(type)}`);
  }
}

/**
 * One event. `objType` is the watched resource's kind/apiVersion as stored (storedTypeOf), for objects that omit
 * theirs and for the rows of a Table.
 * Throws KV_ERR_DECODE for an unknown event type.
 */
export function rewriteWatchEvent(
  event: JsonRecord,
  ctx: RewriteContext,
  objType?: ObjectType,
): JsonRecord | Skip {
  const type = getString(event, 'type') ?? '';
  const obj = event['object'];
  if (!isRecord(obj)) {
    if (!WATCH_EVENT_TYPES.includes(type))
      throw new KvError('KV_ERR_DECODE', `unknown watch event type ${JSON.stringify(type)}`);
    return event;
  }
  const out = rewriteEventObject(type, obj, ctx, objType);
  if (isSkip(out)) return SKIP;
  return out === obj ? event : { ...event, object: out };
}
