/**
 * Restores a list response while it streams, one item at a time (text-rewrite.ts: only the members a rewrite
 * touches are parsed and encoded again), so memory stays at about one item whatever the list's size. Items the
 * rewriter leaves unchanged are written as the bytes that came in.
 *
 * The envelope (kind, apiVersion, metadata) is restored as a whole. Typed lists (PodList...) send it before
 * "items": it is written first. Custom resource lists come with their members sorted (apiVersion, items, kind,
 * metadata), so the kind is only known after the items: then the items go first and the envelope after them
 * (member order means nothing in JSON). An object that turns out not to be a `*List` (a Table) is restored
 * whole.
 *
 * Broken bodies: an item that is not valid JSON is passed through as it is (onInvalid); a broken structure
 * before anything was written passes the whole body through; after that, the rest of the body.
 */
import type { RewriteContext } from '../../rename/context.ts';
import type { ObjectType } from '../../rename/exclude.ts';
import { isList, listItemRewriter, rewriteDocument, rewriteListEnvelope } from '../../rename/document.ts';
import { isSkip, type JsonRecord } from '../../rename/json.ts';
import { ListSplitter, ListSyntaxError, type SplitEvent } from './list-splitter.ts';
import { rewriteObjectText } from './text-rewrite.ts';

export interface ListRestoreOptions {
  readonly ctx: RewriteContext;
  /** The listed resource as the API server keeps it (storedTypeOf): a Table answer's rows are its objects. */
  readonly stored?: ObjectType;
  /** Receives the output in order. */
  readonly write: (data: string | Buffer) => void;
  /** A part of the body (or all of it) that is not valid JSON was passed through. */
  readonly onInvalid: () => void;
}

/**
 * envelope: before the items; items: envelope written, items streaming; late: items streaming, envelope to
 * follow; whole: buffered, restored at the end; raw: passing bytes through; closed: all written.
 */
type Mode = 'envelope' | 'items' | 'late' | 'whole' | 'raw' | 'closed';

export class ListRestorer {
  private readonly splitter = new ListSplitter();
  private mode: Mode = 'envelope';
  /** The body's bytes until the first output, to pass through if it turns out broken. */
  private held: Buffer[] = [];
  private envelope: JsonRecord = {};
  private rewriteItem: (item: unknown) => unknown = (item) => item;
  private firstItem = true;
  /** The object is one the client must not see (an excluded kind): nothing was written. */
  hidden = false;
  /** The envelope turned out excluded after items were written: the response cannot be completed. */
  failed = false;

  constructor(private readonly o: ListRestoreOptions) {}

  push(chunk: Buffer): void {
    if (this.mode === 'closed' || this.hidden) return;
    if (this.mode === 'raw') {
      this.o.write(chunk);
      return;
    }
    if (this.mode === 'envelope' || this.mode === 'whole') this.held.push(chunk);
    if (this.mode === 'whole') return;
    let events: SplitEvent[];
    try {
      events = this.splitter.push(chunk);
    } catch (err) {
      if (!(err instanceof ListSyntaxError)) throw err;
      for (const ev of err.parts) this.handle(ev);
      this.broken(chunk, err.at);
      return;
    }
    for (const ev of events) this.handle(ev);
  }

  end(): void {
    if (this.mode === 'raw' || this.mode === 'closed' || this.hidden) return;
    if (this.mode === 'whole') {
      this.restoreWhole();
      return;
    }
    try {
      this.splitter.end();
    } catch {
      // Truncated: what was not written yet goes out as it came.
      this.o.onInvalid();
      if (this.mode === 'envelope') this.writeHeld();
    }
  }

  private handle(ev: SplitEvent): void {
    if (this.hidden || (this.mode !== 'envelope' && this.mode !== 'items' && this.mode !== 'late')) return;
    switch (ev.type) {
      case 'field':
        this.field(ev.key, ev.raw);
        return;
      case 'items-start':
        this.startItems();
        return;
      case 'item':
        this.item(ev.raw);
        return;
      case 'items-end':
        this.o.write(']');
        return;
      case 'end':
        this.finish();
    }
  }

  private field(key: string, raw: Buffer): void {
    if (this.mode === 'items') {
      // A member after the items of a list whose envelope is written already: passed on as it came.
      this.o.write(`,${JSON.stringify(key)}:`);
      this.o.write(raw);
      return;
    }
    try {
      this.envelope[key] = JSON.parse(raw.toString('utf8'));
    } catch {
      if (this.mode === 'envelope') this.passThrough();
      else this.o.onInvalid();
    }
  }

  private startItems(): void {
    const kind = this.envelope['kind'];
    if (typeof kind === 'string' && !isList({ ...this.envelope, items: [] })) {
      this.mode = 'whole';
      return;
    }
    this.rewriteItem = listItemRewriter(typeOf(this.envelope), this.o.ctx);
    if (typeof kind !== 'string') {
      this.held = [];
      this.mode = 'late';
      this.o.write('{"items":[');
      return;
    }
    const env = rewriteListEnvelope(this.envelope, this.o.ctx);
    if (isSkip(env)) {
      this.hidden = true;
      return;
    }
    const head = JSON.stringify(env);
    this.held = [];
    this.mode = 'items';
    this.o.write(head === '{}' ? '{"items":[' : `${head.slice(0, -1)},"items":[`);
  }

  private item(raw: Buffer): void {
    const text = raw.toString('utf8');
    let out: string;
    try {
      const next = rewriteObjectText(text, this.o.ctx, this.rewriteItem);
      if (isSkip(next)) return;
      out = next;
    } catch {
      this.o.onInvalid();
      out = text;
    }
    this.o.write(this.firstItem ? out : `,${out}`);
    this.firstItem = false;
  }

  private finish(): void {
    if (this.mode === 'envelope') {
      this.restoreWhole();
      return;
    }
    if (this.mode === 'late') this.writeLateEnvelope();
    this.o.write('}');
    this.mode = 'closed';
  }

  /** The envelope of a list whose items went first, restored, as the members after them. */
  private writeLateEnvelope(): void {
    const env = rewriteListEnvelope(this.envelope, this.o.ctx);
    if (isSkip(env)) {
      this.failed = true;
      return;
    }
    for (const [key, value] of Object.entries(env))
      if (key !== 'items') this.o.write(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }

  private restoreWhole(): void {
    const text = Buffer.concat(this.held).toString('utf8');
    this.held = [];
    this.mode = 'closed';
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      this.o.onInvalid();
      this.o.write(text);
      return;
    }
    const out = rewriteDocument(doc, this.o.ctx, this.o.stored);
    if (isSkip(out)) {
      this.hidden = true;
      return;
    }
    this.o.write(out === doc ? text : JSON.stringify(out));
  }

  private broken(chunk: Buffer, at: number): void {
    if (this.hidden) return;
    if (this.mode === 'envelope') {
      this.passThrough();
      return;
    }
    // 'whole' finds out at the end (JSON.parse); raw and closed have nothing left to do.
    if (this.mode !== 'items' && this.mode !== 'late') return;
    this.o.onInvalid();
    this.mode = 'raw';
    this.o.write(chunk.subarray(at));
  }

  /** Nothing was written yet: the body so far, and everything after it, goes out unchanged. */
  private passThrough(): void {
    this.o.onInvalid();
    this.writeHeld();
    this.mode = 'raw';
  }

  private writeHeld(): void {
    for (const b of this.held) this.o.write(b);
    this.held = [];
  }
}

function typeOf(envelope: JsonRecord): { kind?: string; apiVersion?: string } {
  const { kind, apiVersion } = envelope;
  return {
    ...(typeof kind === 'string' && { kind }),
    ...(typeof apiVersion === 'string' && { apiVersion }),
  };
}
