/**
 * The way back: relays the API server's answer to the client. Bodies of targets the rewriter does not touch
 * pass through byte for byte (compressed or not). For the others, gzip is decoded and the body restored:
 * watch streams event by event as they arrive (flushed per chunk of events), lists item by item, anything
 * else whole (a Table, what kubectl asks for with `as=Table`, row by row). A body that is not JSON passes
 * through and is counted.
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { HttpResponse } from '../../kernel/http/response.ts';
import type { RewriteContext } from '../../rename/context.ts';
import { rewriteDocument } from '../../rename/document.ts';
import { isSkip } from '../../rename/json.ts';
import { notFoundStatus } from '../../rename/not-found.ts';
import { storedTypeOf } from '../../rename/table.ts';
import type { ApiTarget } from '../../rename/target.ts';
import { ClientWriter } from './client-writer.ts';
import { sendStatus } from '../../kernel/http/body.ts';
import { clientHeaders, contentEncoding, isJsonContentType, stringOf } from './http.ts';
import { ListRestorer } from './list-restore.ts';
import type { RequestRecorder } from './recorder.ts';
import { WatchRestorer } from './watch-restore.ts';

export interface RelayContext {
  readonly res: ServerResponse;
  /** The request as the client sent it (original names). */
  readonly target: ApiTarget;
  readonly method: string;
  readonly rewrite: boolean;
  /** The restore context. */
  readonly ctx: RewriteContext;
  readonly rec: RequestRecorder;
}

type Mode = 'pass' | 'opaque' | 'watch' | 'list' | 'whole';

function modeOf(rc: RelayContext, up: HttpResponse): Mode {
  if (!rc.rewrite || rc.method === 'HEAD') return 'pass';
  const type = stringOf(up.headers['content-type']);
  if (type === undefined) return 'pass';
  const encoding = contentEncoding(up.headers);
  if (!isJsonContentType(type) || !['', 'gzip', 'x-gzip', 'deflate', 'identity'].includes(encoding))
    return 'opaque';
  const ok = up.statusCode >= 200 && up.statusCode < 300;
  if (ok && rc.target.isWatch) return 'watch';
  // A Table (the API server announces it as plain JSON) is found by the list restorer, which restores what
  // turns out not to be a list whole.
  if (ok && rc.target.isList && rc.method === 'GET') return 'list';
  return 'whole';
}

/** Relays the answer; resolves when the client has it all (or has gone away). Stream errors propagate. */
export async function relayResponse(rc: RelayContext, up: HttpResponse): Promise<void> {
  const mode = modeOf(rc, up);
  switch (mode) {
    case 'pass':
    case 'opaque':
      if (mode === 'opaque') rc.rec.invalidJson();
      await pipeRaw(rc, up);
      return;
    case 'watch':
      await relayWatch(rc, up);
      return;
    case 'list':
      await relayList(rc, up);
      return;
    case 'whole':
      await relayWhole(rc, up);
  }
}

/** The body's chunks, decompressed, counted as they come from the API server. */
async function* counted(rc: RelayContext, up: HttpResponse): AsyncGenerator<Buffer> {
  const encoding = contentEncoding(up.headers);
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : undefined;
  if (decoder === undefined) {
    for await (const chunk of up.body as AsyncIterable<Buffer>) {
      rc.rec.fromTarget(chunk.length);
      yield chunk;
    }
    return;
  }
  up.body.on('data', (chunk: Buffer) => {
    rc.rec.fromTarget(chunk.length);
  });
  // pipeline carries a broken upstream body (or a reset) to the decoder, so the loop below ends with it.
  pipeline(up.body, decoder, () => undefined);
  yield* decoder as AsyncIterable<Buffer>;
}

function writer(rc: RelayContext, up: HttpResponse, rewritten: boolean): ClientWriter {
  const headers = clientHeaders(up.headers, { rewritten, decoded: rewritten });
  return new ClientWriter(
    rc.res,
    () => {
      rc.res.writeHead(up.statusCode, headers);
    },
    rc.target.isWatch,
  );
}

async function pipeRaw(rc: RelayContext, up: HttpResponse): Promise<void> {
  const w = writer(rc, up, false);
  try {
    for await (const chunk of up.body as AsyncIterable<Buffer>) {
      rc.rec.fromTarget(chunk.length);
      w.write(chunk);
      await w.drained();
      if (w.gone) break;
    }
  } finally {
    rc.rec.toClient(w.bytes);
  }
  w.end();
}

async function relayWatch(rc: RelayContext, up: HttpResponse): Promise<void> {
  const w = writer(rc, up, true);
  const restorer = new WatchRestorer({
    ctx: rc.ctx,
    stored: storedTypeOf(rc.target, rc.ctx.rules),
    onInvalid: (): void => {
      rc.rec.invalidJson();
    },
    onEvent: (s): void => {
      rc.rec.watchEvent(s);
    },
  });
  w.start();
  try {
    for await (const chunk of counted(rc, up)) {
      w.write(restorer.push(chunk));
      w.flush();
      await w.drained();
      if (w.gone) break;
    }
    w.write(restorer.end());
  } finally {
    rc.rec.toClient(w.bytes);
  }
  w.end();
}

async function relayList(rc: RelayContext, up: HttpResponse): Promise<void> {
  const w = writer(rc, up, true);
  const restorer = new ListRestorer({
    ctx: rc.ctx,
    stored: storedTypeOf(rc.target, rc.ctx.rules),
    write: (d): void => {
      w.write(d);
    },
    onInvalid: (): void => {
      rc.rec.invalidJson();
    },
  });
  let seconds = 0;
  const timed = (fn: () => void): void => {
    const t = performance.now();
    fn();
    seconds += (performance.now() - t) / 1000;
  };
  try {
    for await (const chunk of counted(rc, up)) {
      timed(() => {
        restorer.push(chunk);
      });
      if (restorer.hidden || w.gone) break;
      await w.drained();
    }
    if (!restorer.hidden)
      timed(() => {
        restorer.end();
      });
  } finally {
    rc.rec.rewriteSeconds('target', 'restore', seconds);
    rc.rec.toClient(w.bytes);
  }
  if (restorer.hidden) rc.rec.toClient(sendStatus(rc.res, notFoundStatus(rc.target)));
  // The envelope came after the items and turned out hidden: the list cannot be finished, so it is cut.
  else if (restorer.failed) rc.res.destroy();
  else w.end();
}

async function readAll(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function relayWhole(rc: RelayContext, up: HttpResponse): Promise<void> {
  const raw = await readAll(counted(rc, up));
  const text = raw.toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    rc.rec.invalidJson();
    send(rc, up, raw);
    return;
  }
  const out = rc.rec.rewrite('target', 'restore', () =>
    rewriteDocument(doc, rc.ctx, storedTypeOf(rc.target, rc.ctx.rules)),
  );
  if (isSkip(out)) {
    rc.rec.toClient(sendStatus(rc.res, notFoundStatus(rc.target)));
    return;
  }
  send(rc, up, out === doc ? raw : Buffer.from(JSON.stringify(out)));
}

function send(rc: RelayContext, up: HttpResponse, body: Buffer): void {
  const headers = clientHeaders(up.headers, { rewritten: true, decoded: true });
  rc.res.writeHead(up.statusCode, { ...headers, 'content-length': String(body.length) });
  rc.res.end(body);
  rc.rec.toClient(body.length);
}
