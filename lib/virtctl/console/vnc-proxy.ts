/**
 * `virtctl-ts vnc <vmi>`: a local TCP listener (127.0.0.1 by default, --port 0 for any free port) that bridges
 * each VNC client to a fresh websocket to the VMI's vnc subresource. The VMI's VNC is checked first (one
 * websocket opened and closed), so a refusal fails before anything listens. The port is printed as virtctl's
 * --proxy-only prints it, `{"port":N}` on stdout. No viewer is launched: without --proxy-only a note on stderr
 * says so and the proxy runs the same. Runs until interrupted.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { subresourcePath } from '../../kubevirt/gvr.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { VirtctlClient } from '../client.ts';
import { CommandFailed } from '../errors/failures.ts';
import type { CliIo } from '../io.ts';
import { dialSubresource } from './ws-dial.ts';

export interface VncOptions {
  readonly client: VirtctlClient;
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly proxyOnly: boolean;
  readonly preserveSession: boolean;
  readonly io: CliIo;
}

/** Above this many bytes queued toward the API server, stop reading from the viewer. */
const HIGH_WATER = 1 << 20;

function bridge(sock: Socket, ws: WebSocket): void {
  const end = (): void => {
    sock.destroy();
    ws.terminate();
  };
  sock.on('data', (chunk: Buffer) => {
    ws.send(chunk, () => {
      if (sock.isPaused() && ws.bufferedAmount < HIGH_WATER) sock.resume();
    });
    if (ws.bufferedAmount >= HIGH_WATER) sock.pause();
  });
  ws.on('message', (data: Buffer) => {
    if (!sock.write(data)) {
      ws.pause();
      sock.once('drain', () => {
        ws.resume();
      });
    }
  });
  sock.on('close', end);
  sock.on('error', end);
  ws.on('close', end);
  ws.on('error', end);
}

function listen(address: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer({ pauseOnConnect: true });
    srv.once('error', reject);
    srv.listen(port, address, () => {
      srv.off('error', reject);
      resolve(srv);
    });
  });
}

export async function runVncProxy(o: VncOptions): Promise<void> {
  const { client, io } = o;
  const path = subresourcePath(
    { resource: 'virtualmachineinstances', namespace: client.namespace, name: o.name },
    'vnc',
  );
  const query = { preserveSession: String(o.preserveSession) };
  const probe = await dialSubresource(client, path, query).catch((err: unknown) => {
    throw new CommandFailed(`can't access VMI ${o.name}`, err);
  });
  probe.close(1000);
  const srv = await listen(o.address, o.port);
  const open = new Set<Socket>();
  srv.on('connection', (sock: Socket) => {
    open.add(sock);
    sock.on('close', () => open.delete(sock));
    sock.on('error', () => undefined);
    dialSubresource(client, path, query).then(
      (ws) => {
        bridge(sock, ws);
        sock.resume();
      },
      (err: unknown) => {
        io.stderr.write(`can't access VMI ${o.name}: ${errorMessage(err)}\n`);
        sock.destroy();
      },
    );
  });
  const addr = srv.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : o.port;
  if (!o.proxyOnly) {
    io.stderr.write(
      `virtctl-ts launches no VNC viewer: point one at ${o.address}:${port} (the proxy runs as with --proxy-only)\n`,
    );
  }
  io.stdout.write(`${JSON.stringify({ port })}\n`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    io.signal.addEventListener('abort', () => {
      resolve();
    });
  });
  for (const s of open) s.destroy();
  await new Promise<void>((resolve) => {
    srv.close(() => {
      resolve();
    });
  });
}
