/**
 * Opens a subresource websocket (console, vnc) through the API server with subprotocol plain.kubevirt.io.
 * Resolves with the open socket; a refused upgrade rejects with the server's Status (as a StatusError, read
 * from at most the first 64 KiB of its body), no answer with KV_ERR_TRANSPORT, both wrapped in RequestFailed
 * like the JSON calls.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { KvError, StatusError, errorMessage } from '../../kernel/errors/errors.ts';
import { statusFromBody } from '../../kernel/kube/http-transport.ts';
import type { VirtctlClient } from '../client.ts';
import { RequestFailed } from '../errors/failures.ts';

const PLAIN_SUBPROTOCOL = 'plain.kubevirt.io';

/** How much of a refused upgrade's body is read: a Status is a few hundred bytes. */
const MAX_REFUSAL_BODY = 64 * 1024;

/** The body as text, at most limit bytes of it; the response is dropped once the cap is reached. */
function readCappedBody(res: IncomingMessage, limit = MAX_REFUSAL_BODY): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    res.on('data', (c: Buffer) => {
      const part = c.subarray(0, limit - size);
      chunks.push(part);
      size += part.length;
      if (size < limit) return;
      res.destroy();
      done();
    });
    res.on('end', done);
    res.on('error', done);
    res.on('close', done);
  });
}

export async function dialSubresource(
  client: VirtctlClient,
  path: string,
  query?: Readonly<Record<string, string>>,
): Promise<WebSocket> {
  const request = { method: 'GET' as const, path };
  const ws = new WebSocket(
    client.websocketUrl(path, query),
    [PLAIN_SUBPROTOCOL],
    await client.websocketOptions(),
  );
  return new Promise((resolve, reject) => {
    const fail = (err: unknown): void => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      reject(new RequestFailed(request, client.server, err));
    };
    ws.once('open', () => {
      ws.removeAllListeners();
      resolve(ws);
    });
    ws.once('unexpected-response', (req, res) => {
      ws.removeAllListeners('error');
      ws.on('error', () => undefined);
      void readCappedBody(res).then((text) => {
        req.destroy();
        fail(new StatusError(statusFromBody(res.statusCode ?? 0, text)));
      });
    });
    ws.once('error', (err) => {
      fail(new KvError('KV_ERR_TRANSPORT', `GET ${path}: ${errorMessage(err)}`, { cause: err }));
    });
  });
}
