/** A watch of the inner client with each event restored; events of hidden objects are left out. */
import type { KubeObject, WatchEvent } from '../../kernel/kube/types.ts';
import type { RewriteContext } from '../context.ts';
import { isSkip } from '../json.ts';
import { rewriteWatchEvent } from '../watch.ts';

/** `ctx` undefined: the resource has no rules, events pass as they are. Errors go through `mapError`. */
export async function* watchEvents<T extends KubeObject>(
  events: AsyncIterable<WatchEvent>,
  ctx: RewriteContext | undefined,
  mapError: (err: unknown) => unknown,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  try {
    for await (const ev of events) {
      const out = ctx === undefined ? ev : rewriteWatchEvent(ev, ctx);
      if (isSkip(out)) continue;
      yield out as unknown as WatchEvent<T>;
    }
  } catch (err) {
    throw mapError(err);
  }
}
