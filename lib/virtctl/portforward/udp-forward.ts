/**
 * A local UDP port forwarded to the VM (KubeVirt portforward udp.go): each sender address gets its own
 * portforward websocket, opened at its first datagram; every datagram is one websocket message and every
 * message back one datagram to that sender. A sender's tunnel ends when its websocket closes; its next
 * datagram opens a new one. Datagrams that arrive while the tunnel opens wait for it (at most a few).
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { WebSocket } from 'ws';
import { writeLine } from '../io.ts';
import type { ForwardedPort } from './forward-args.ts';
import { closeSoon } from './stream-bridge.ts';
import {
  forwardingLine,
  listenError,
  openTunnel,
  tunnelRefused,
  type Bound,
  type ForwardContext,
  type Forwarder,
} from './tunnel.ts';

/** Datagrams kept for a sender whose tunnel is still opening; more are dropped, as a full socket would. */
const MAX_WAITING = 64;

interface Sender {
  ws?: WebSocket;
  readonly waiting: Buffer[];
}

function bind(sock: Socket, address: string, port: number): Promise<Bound> {
  return new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(port, address, () => {
      sock.off('error', reject);
      const a = sock.address();
      resolve({ address: a.address, port: a.port });
    });
  });
}

export async function forwardUdp(
  ctx: ForwardContext,
  address: string,
  port: ForwardedPort,
): Promise<Forwarder> {
  const sock = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
  const bound = await bind(sock, address, port.local).catch((err: unknown) => {
    sock.close();
    throw listenError('udp', address, port.local, err);
  });
  sock.on('error', () => undefined);
  const senders = new Map<string, Sender>();
  let closing = false;

  const open = (key: string, from: RemoteInfo, sender: Sender): void => {
    openTunnel(ctx, port).then(
      (ws) => {
        if (closing) {
          ws.terminate();
          return;
        }
        sender.ws = ws;
        ws.on('error', () => undefined);
        ws.on('message', (data: Buffer) => {
          if (!closing) sock.send(data, from.port, from.address);
        });
        ws.once('close', () => senders.delete(key));
        for (const d of sender.waiting.splice(0)) ws.send(d, { binary: true });
      },
      (err: unknown) => {
        senders.delete(key);
        tunnelRefused(ctx, port, err);
      },
    );
  };

  sock.on('message', (msg: Buffer, from: RemoteInfo) => {
    const key = `${from.address}:${from.port}`;
    let sender = senders.get(key);
    if (sender === undefined) {
      sender = { waiting: [] };
      senders.set(key, sender);
      open(key, from, sender);
    }
    const ws = sender.ws;
    if (ws !== undefined && ws.readyState === ws.OPEN) {
      ws.send(msg, { binary: true });
    } else if (sender.waiting.length < MAX_WAITING) {
      sender.waiting.push(msg);
    }
  });
  writeLine(ctx.io.stderr, forwardingLine(port, bound));
  return {
    close: async (): Promise<void> => {
      closing = true;
      const tunnels = [...senders.values()].flatMap((s) => (s.ws === undefined ? [] : [s.ws]));
      const ends = tunnels.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) resolve();
            ws.once('close', () => {
              resolve();
            });
            closeSoon(ws, ctx.clock);
          }),
      );
      await new Promise<void>((resolve) =>
        sock.close(() => {
          resolve();
        }),
      );
      await Promise.all(ends);
    },
  };
}
