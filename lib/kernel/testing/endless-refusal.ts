/**
 * A plain-TCP HTTP server for body-cap tests: it answers every request (upgrades too) 403 with a Status, then
 * keeps sending chunked body bytes for as long as the client reads. `written` says how many it got out.
 */
import { createServer, type Socket } from 'node:net';

export interface EndlessRefusal {
  readonly url: string;
  written(): number;
  close(): Promise<void>;
}

export async function endlessRefusal(message = 'no'): Promise<EndlessRefusal> {
  let written = 0;
  const sockets = new Set<Socket>();
  const status = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, message });
  const chunk = ' '.repeat(16 * 1024);
  const head =
    'HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n';
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.once('data', () => {
      sock.write(`${head}${status.length.toString(16)}\r\n${status}\r\n`);
      const pump = (): void => {
        while (!sock.destroyed) {
          written += chunk.length;
          if (!sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) {
            sock.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    written: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
