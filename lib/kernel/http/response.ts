/**
 * The answer to an outgoing HTTP call (keep-alive-client.ts): status, headers, and the body as Node's
 * IncomingMessage with a few readers on it (the whole body as text, JSON or bytes, or read and thrown away).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

interface BodyReaders {
  /** The whole body, decoded as UTF-8. */
  text(): Promise<string>;
  /** The whole body, parsed as JSON (a SyntaxError when it is not). */
  json(): Promise<unknown>;
  /** The whole body. */
  bytes(): Promise<Buffer>;
  /** Reads the body and drops it; past DUMP_LIMIT bytes the connection is closed instead. Never rejects. */
  dump(): Promise<void>;
}

/** The body: a Readable (async-iterable, destroyable) with the readers. */
export type ResponseBody = IncomingMessage & BodyReaders;

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: ResponseBody;
}

/** How much of a body dump() reads before it closes the connection rather than reading on. */
const DUMP_LIMIT = 128 * 1024;

async function bytesOf(msg: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of msg) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function dumpOf(msg: IncomingMessage): Promise<void> {
  let size = 0;
  try {
    for await (const chunk of msg) {
      size += (chunk as Buffer).length;
      if (size > DUMP_LIMIT) break;
    }
  } catch {
    // a body that breaks is dropped all the same
  }
  if (!msg.destroyed) msg.destroy();
}

/** The message as a ResponseBody (the readers are added to the message itself). */
export function responseOf(msg: IncomingMessage): HttpResponse {
  const readers: BodyReaders = {
    text: async () => (await bytesOf(msg)).toString('utf8'),
    json: async () => JSON.parse((await bytesOf(msg)).toString('utf8')) as unknown,
    bytes: () => bytesOf(msg),
    dump: () => dumpOf(msg),
  };
  return { statusCode: msg.statusCode ?? 0, headers: msg.headers, body: Object.assign(msg, readers) };
}
