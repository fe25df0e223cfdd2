/**
 * Restores a watch stream frame by frame (one JSON event per line) as the bytes arrive: each complete line is
 * restored (rewriteWatchEvent, through text-rewrite.ts; a Table event, `kubectl get -w`, row by row) and handed
 * back with its newline; events of excluded objects are left out. A line that is not JSON or not a known event
 * passes through unchanged (onInvalid), so nothing is ever dropped or reordered apart from the excluded objects.
 * Pure apart from the callbacks.
 */
import { StringDecoder } from 'node:string_decoder';
import type { RewriteContext } from '../../rename/context.ts';
import type { ObjectType } from '../../rename/exclude.ts';
import { isSkip } from '../../rename/json.ts';
import { restoreEventText } from './text-rewrite.ts';

export interface WatchRestoreOptions {
  readonly ctx: RewriteContext;
  /** The watched resource as the API server keeps it (storedTypeOf): Table events' rows are its objects. */
  readonly stored?: ObjectType;
  readonly onInvalid: () => void;
  /** Seconds spent on one event (the handling-duration histogram). */
  readonly onEvent?: (seconds: number) => void;
}

export class WatchRestorer {
  private readonly decoder = new StringDecoder('utf8');
  /** The line in progress (a chunk may end inside an event; the decoder keeps a cut UTF-8 sequence). */
  private pending = '';

  constructor(private readonly o: WatchRestoreOptions) {}

  /** The events this chunk completed, restored, each ending in '\n' ('' when none). */
  push(chunk: Buffer): string {
    const text = this.pending + this.decoder.write(chunk);
    const last = text.lastIndexOf('\n');
    if (last === -1) {
      this.pending = text;
      return '';
    }
    this.pending = text.slice(last + 1);
    let out = '';
    for (let start = 0; start <= last;) {
      const nl = text.indexOf('\n', start);
      out += this.frame(text.slice(start, nl));
      start = nl + 1;
    }
    return out;
  }

  /** A last event without its newline. */
  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return this.frame(rest);
  }

  private frame(raw: string): string {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return '';
    const started = performance.now();
    let out: string;
    try {
      const next = restoreEventText(line, this.o.ctx, this.o.stored);
      out = isSkip(next) ? '' : `${next}\n`;
    } catch {
      this.o.onInvalid();
      out = `${line}\n`;
    }
    this.o.onEvent?.((performance.now() - started) / 1000);
    return out;
  }
}
