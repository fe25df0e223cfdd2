/**
 * Reading a request body under a size limit, and answering with a Kubernetes Status: shared by every role that
 * serves HTTP (the rewriter's proxies, the api).
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
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // The rest is read and dropped, so the client gets to read the 413 instead of a reset.
        req.off('data', onData);
        req.resume();
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

/** Answers with a Status (its code as the HTTP status); returns the bytes sent (0: the response was cut). */
export function sendStatus(res: ServerResponse, status: Status): number {
  const body = JSON.stringify(status);
  if (res.headersSent) {
    res.destroy();
    return 0;
  }
  res.writeHead(status.code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
  return Buffer.byteLength(body);
}
