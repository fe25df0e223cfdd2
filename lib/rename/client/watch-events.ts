/**
 * A watch of the inner client with each event restored; events of hidden objects are left out. A restored event
 * is read again as a watch event (the rewriter keeps its type and object).
 */
import { asWatchEvent } from '../../kernel/kube/watch-decoder.ts';
import type { KubeObject, WatchEvent } from '../../kernel/kube/types.ts';
import type { RewriteContext } from '../context.ts';
import { isSkip } from '../json.ts';
import { rewriteWatchEvent } from '../watch.ts';

/** `ctx` undefined: the resource has no rules, events pass as they are. Errors go through `mapError`. */
export async function* watchEvents<T extends KubeObject>(
  events: AsyncIterable<WatchEvent<T>>,
  ctx: RewriteContext | undefined,
  mapError: (err: unknown) => unknown,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  try {
    for await (const ev of events) {
      if (ctx === undefined) {
        yield ev;
        continue;
      }
      const out = rewriteWatchEvent(ev, ctx);
      if (isSkip(out)) continue;
      yield asWatchEvent<T>(out, () => JSON.stringify(out));
    }
  } catch (err) {
    throw mapError(err);
  }
}
