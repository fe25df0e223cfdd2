/**
 * A websocket upgrade accepted on a raw HTTP upgrade connection, as a promise: the open socket, or a rejection
 * when the client goes away during the handshake (the ws library then never calls back).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';

export function acceptUpgrade(
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const early = (): void => {
      reject(new Error('the client went away during the websocket handshake'));
    };
    socket.once('close', early);
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('close', early);
      resolve(ws);
    });
  });
}
