/**
 * Decodes a watch body (one JSON event per line) into WatchEvents as the bytes arrive. Pure apart from
 * pulling from the given chunk iterable.
 */
import { KvError } from '../errors/errors.ts';
import { LineSplitter } from './line-splitter.ts';
import type { KubeObject, WatchEvent, WatchEventType } from './types.ts';

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>([
  'ADDED',
  'MODIFIED',
  'DELETED',
  'BOOKMARK',
  'ERROR',
]);

export function decodeWatchEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `watch event is not valid JSON: ${line.slice(0, 200)}`, {
      cause: err,
    });
  }
  return asWatchEvent<T>(parsed, () => line);
}

/**
 * A parsed value as a watch event: a known type and an object, which the watch's caller declares to be a T (or a
 * Status for ERROR), as it does for every object the client answers. `shown` gives the text a refusal quotes.
 */
export function asWatchEvent<T extends KubeObject>(value: unknown, shown: () => string): WatchEvent<T> {
  const ev = value as { type?: unknown; object?: unknown } | null;
  if (
    typeof ev?.type !== 'string' ||
    !EVENT_TYPES.has(ev.type) ||
    typeof ev.object !== 'object' ||
    ev.object === null
  ) {
    throw new KvError('KV_ERR_DECODE', `not a watch event: ${shown().slice(0, 200)}`);
  }
  return value as WatchEvent<T>;
}

/** Yields each event as soon as its line is complete; blank lines are skipped. */
export async function* decodeWatchStream<T extends KubeObject>(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const lines = new LineSplitter();
  for await (const chunk of chunks) {
    for (const line of lines.push(chunk)) if (line.trim() !== '') yield decodeWatchEvent<T>(line);
  }
  for (const line of lines.end()) if (line.trim() !== '') yield decodeWatchEvent<T>(line);
}
