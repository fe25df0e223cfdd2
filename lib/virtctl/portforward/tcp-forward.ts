/**
 * A local TCP port forwarded to the VM (KubeVirt portforward tcp.go): each accepted connection gets its own
 * portforward websocket, and the two are bridged until either side ends. A refused tunnel closes that
 * connection; listening goes on unless the refusal is final.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { writeLine } from '../io.ts';
import type { ForwardedPort } from './forward-args.ts';
import { bridge, type Bridge } from './stream-bridge.ts';
import {
  forwardingLine,
  listenError,
  openTunnel,
  tunnelRefused,
  type Bound,
  type ForwardContext,
  type Forwarder,
} from './tunnel.ts';

function listen(srv: Server, address: string, port: number): Promise<Bound> {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, address, () => {
      srv.off('error', reject);
      const a = srv.address();
      resolve(typeof a === 'object' && a !== null ? { address: a.address, port: a.port } : { address, port });
    });
  });
}

export async function forwardTcp(
  ctx: ForwardContext,
  address: string,
  port: ForwardedPort,
): Promise<Forwarder> {
  const srv = createServer({ pauseOnConnect: true, allowHalfOpen: true });
  const bound = await listen(srv, address, port.local).catch((err: unknown) => {
    throw listenError('tcp', address, port.local, err);
  });
  srv.on('error', () => undefined);
  const sockets = new Set<Socket>();
  const bridges = new Set<Bridge>();
  srv.on('connection', (sock: Socket) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => undefined);
    openTunnel(ctx, port).then(
      (ws) => {
        if (sock.destroyed || !srv.listening) {
          ws.terminate();
          return;
        }
        const b = bridge(
          { input: sock, output: sock, release: () => sock.end(() => sock.destroy()) },
          ws,
          ctx.clock,
        );
        bridges.add(b);
        void b.done.then(() => bridges.delete(b));
      },
      (err: unknown) => {
        sock.destroy();
        tunnelRefused(ctx, port, err);
      },
    );
  });
  writeLine(ctx.io.stderr, forwardingLine(port, bound));
  return {
    close: async (): Promise<void> => {
      const closed = new Promise<void>((resolve) =>
        srv.close(() => {
          resolve();
        }),
      );
      const ends = [...bridges].map((b) => {
        b.stop();
        return b.done;
      });
      await Promise.all(ends);
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
