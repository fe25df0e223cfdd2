/**
 * Reading a request body under a size limit, and answering with a Kubernetes Status: shared by every role that
 * serves HTTP (the rewriter's proxies, the api). A body past the limit is not read any further: the answer to
 * it (413) goes out with `Connection: close`, and the connection is closed once it is written, so a client that
 * keeps sending costs the server nothing more (Node would otherwise read the rest to reuse the connection).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KvError, type Status } from '../errors/errors.ts';

export class BodyTooLargeError extends KvError {
  constructor(readonly limit: number) {
    super('KV_ERR_DECODE', `the request body is larger than ${limit} bytes`);
  }
}

/** The whole request body; BodyTooLargeError past `limit` bytes (Content-Length is checked first). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // Nothing more is read: the answer closes the connection (sendStatus).
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.once('error', reject);
    // A client that goes away mid-body: no 'end' will come.
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client closed the request before its body was complete'));
    });
  });
}

/**
 * Answers with `body` as JSON; returns the bytes sent (0: the response was cut, its headers being gone). When
 * the request's body has not been read to its end, the answer closes the connection.
 */
export function sendJson(res: ServerResponse, code: number, body: unknown): number {
  if (res.headersSent) {
    res.destroy();
    return 0;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(!res.req.complete && { connection: 'close' }),
  });
  res.end(text);
  return Buffer.byteLength(text);
}

/** Answers with a Status, its code as the HTTP status (sendJson). */
export function sendStatus(res: ServerResponse, status: Status): number {
  return sendJson(res, status.code, status);
}
