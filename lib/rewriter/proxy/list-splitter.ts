/**
 * Splits a JSON object with an "items" array — `{"kind":..,"metadata":{..},"items":[ {...}, {...} ]}` — into its
 * parts as the bytes arrive: each top-level member other than items (key and raw value bytes), then each item's
 * raw bytes, so a list of any size is rewritten one item at a time and never parsed whole. Only the object
 * structure is checked here; values are validated when they are parsed. Pure: no IO.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import {
  COLON,
  COMMA,
  isSpace,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
  ValueScanner,
} from './value-scanner.ts';

export type SplitEvent =
  | { readonly type: 'field'; readonly key: string; readonly raw: Buffer }
  | { readonly type: 'items-start' }
  | { readonly type: 'item'; readonly raw: Buffer }
  | { readonly type: 'items-end' }
  | { readonly type: 'end' };

/** Where the splitter is between values (a value in progress is the scanner's). */
type Phase =
  | 'start'
  | 'first-key'
  | 'key'
  | 'colon'
  | 'value'
  | 'after-value'
  | 'items-open'
  | 'first-item'
  | 'item'
  | 'after-item'
  | 'done';

/**
 * The structural failure: `at` is the offset of the offending byte in the chunk given to push, `parts` what
 * that chunk completed before it.
 */
export class ListSyntaxError extends KvError {
  parts: SplitEvent[] = [];
  constructor(
    message: string,
    readonly at: number,
  ) {
    super('KV_ERR_DECODE', message);
  }
}

type Step = (c: number, i: number, buf: Buffer, out: SplitEvent[]) => number;

export class ListSplitter {
  private phase: Phase = 'start';
  private readonly value = new ValueScanner();
  /** What the value in progress is: a member key, a member value, or an item. */
  private valueRole: 'key' | 'value' | 'item' = 'value';
  private key = '';
  private offset = 0;

  private readonly steps: Readonly<Record<Phase, Step>> = {
    start: (c, i) => this.expect(c === LBRACE, i, 'first-key'),
    'first-key': (c, i, buf, out) => (c === RBRACE ? this.finish(i, out) : this.beginKey(c, i, buf)),
    key: (c, i, buf) => this.beginKey(c, i, buf),
    colon: (c, i) => this.expect(c === COLON, i, this.key === 'items' ? 'items-open' : 'value'),
    value: (_c, i, buf) => this.beginValue(buf, i, 'value'),
    'after-value': (c, i, _buf, out) =>
      c === RBRACE ? this.finish(i, out) : this.expect(c === COMMA, i, 'key'),
    'items-open': (c, i, _buf, out) => {
      if (c !== LBRACKET) {
        this.phase = 'value';
        return i;
      }
      out.push({ type: 'items-start' });
      this.phase = 'first-item';
      return i + 1;
    },
    'first-item': (c, i, buf, out) =>
      c === RBRACKET ? this.endItems(i, out) : this.beginValue(buf, i, 'item'),
    item: (_c, i, buf) => this.beginValue(buf, i, 'item'),
    'after-item': (c, i, _buf, out) =>
      c === RBRACKET ? this.endItems(i, out) : this.expect(c === COMMA, i, 'item'),
    done: (_c, i) => this.fail(i, 'data after the end of the object'),
  };

  /** Feeds one chunk; returns the parts it completed. Throws ListSyntaxError on a broken structure. */
  push(buf: Buffer): SplitEvent[] {
    const out: SplitEvent[] = [];
    let i = 0;
    try {
      while (i < buf.length) {
        if (this.value.scanning) {
          i = this.continueValue(buf, i, out);
          continue;
        }
        const c = buf[i] as number;
        i = isSpace(c) ? i + 1 : this.steps[this.phase](c, i, buf, out);
      }
    } catch (err) {
      if (err instanceof ListSyntaxError) err.parts = out;
      throw err;
    }
    this.offset += buf.length;
    return out;
  }

  /** The stream ended: throws when the object is not complete. */
  end(): void {
    if (this.phase !== 'done') throw new ListSyntaxError('the body ended before the object was complete', 0);
  }

  private expect(ok: boolean, i: number, next: Phase): number {
    if (!ok) return this.fail(i, `unexpected byte in phase ${this.phase}`);
    this.phase = next;
    return i + 1;
  }

  private fail(i: number, what: string): never {
    throw new ListSyntaxError(`list body: ${what} at byte ${this.offset + i}`, i);
  }

  private finish(i: number, out: SplitEvent[]): number {
    out.push({ type: 'end' });
    this.phase = 'done';
    return i + 1;
  }

  private endItems(i: number, out: SplitEvent[]): number {
    out.push({ type: 'items-end' });
    this.phase = 'after-value';
    return i + 1;
  }

  private beginKey(c: number, i: number, buf: Buffer): number {
    if (c !== QUOTE) return this.fail(i, 'expected a member name');
    return this.beginValue(buf, i, 'key');
  }

  private beginValue(buf: Buffer, i: number, role: 'key' | 'value' | 'item'): number {
    this.valueRole = role;
    this.value.begin(buf, i);
    return i;
  }

  private continueValue(buf: Buffer, index: number, out: SplitEvent[]): number {
    const end = this.value.scan(buf, index);
    if (end === -1) return buf.length;
    const raw = this.value.take(buf, end);
    switch (this.valueRole) {
      case 'key':
        this.key = parseKey(raw, () => this.fail(index, 'a member name that is not a JSON string'));
        this.phase = 'colon';
        break;
      case 'value':
        out.push({ type: 'field', key: this.key, raw });
        this.phase = 'after-value';
        break;
      case 'item':
        out.push({ type: 'item', raw });
        this.phase = 'after-item';
        break;
    }
    return end;
  }
}

function parseKey(raw: Buffer, fail: () => never): string {
  try {
    const key: unknown = JSON.parse(raw.toString('utf8'));
    return typeof key === 'string' ? key : fail();
  } catch {
    return fail();
  }
}
