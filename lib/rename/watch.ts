/**
 * Watch events ({type, object}), one at a time as they arrive. BOOKMARK objects get only apiVersion and kind
 * rewritten (they are not full objects); ERROR objects are Status; an excluded object makes the event SKIP.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { RewriteContext } from './context.ts';
import { rewriteCustomResource } from './custom-resource.ts';
import type { ObjectType } from './exclude.ts';
import { getString, isRecord, isSkip, SKIP, type JsonRecord, type Skip } from './json.ts';
import { rewriteObject } from './object.ts';
import { restoreStatus } from './status.ts';

const WATCH_EVENT_TYPES: readonly string[] = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];

function rewriteEventObject(
  type: string,
  obj: JsonRecord,
  ctx: RewriteContext,
  objType?: ObjectType,
): JsonRecord | Skip {
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
 * One event. `objType` is the watched resource's kind/apiVersion for objects that omit theirs.
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
