/**
 * A target tunnel's listener (kubevirt migration-proxy NewTargetProxy, createTcpListener, tag v1.6.2): TLS on
 * the node's migration address and one port of the range; a caller the CA did not sign for client use, or with
 * another name than the handlers', is dropped before anything is dialled; every other connection is relayed to
 * the target launcher's unix socket, opened without following a symlink the tenant planted.
 */
import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { connectBeneath } from '../../kernel/safepath/index.ts';
import { podPathText, type PodPath } from '../../rpc/index.ts';
import { stopServer, Tunnels, type ProxyListener } from './listener.ts';
import { callerRefusal, serverOptions, type MigrationTls } from './tls.ts';

const DIAL_TIMEOUT_MS = 10_000;

export interface TargetListenerOptions {
  readonly host: string;
  readonly port: number;
  /** The current TLS material, read for each connection's check. */
  readonly tls: () => MigrationTls;
  /** The target launcher's socket this tunnel ends at. */
  readonly to: PodPath;
  readonly clock: Clock;
  readonly log: Logger;
}

export interface TargetListener extends ProxyListener {
  readonly port: number;
  /** Takes new TLS material for the next handshakes. */
  setTls(t: MigrationTls): void;
}

/** Listens; rejects with KV_ERR_TRANSPORT whose cause carries the errno (EADDRINUSE for a busy port). */
function listen(server: Server, o: TargetListenerOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => {
      reject(
        new KvError(
          'KV_ERR_TRANSPORT',
          `migration proxy cannot listen on ${o.host}:${o.port}: ${err.message}`,
          {
            cause: err,
          },
        ),
      );
    };
    server.once('error', failed);
    server.listen(o.port, o.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

export async function startTargetListener(o: TargetListenerOptions): Promise<TargetListener> {
  const log = o.log.with({ listening: `${o.host}:${o.port}`, outbound: podPathText(o.to) });
  const tunnels = new Tunnels({
    dial: (): Promise<Socket> =>
      connectBeneath(o.to.root, o.to.rel, {
        clock: o.clock,
        timeoutMs: DIAL_TIMEOUT_MS,
        allowHalfOpen: true,
      }),
    log,
  });
  const server = createServer(serverOptions(o.tls()));
  server.on('connection', (raw: Socket) => {
    raw.on('error', () => undefined);
    tunnels.acceptRaw(raw);
  });
  server.on('secureConnection', (s: TLSSocket) => {
    const refusal = callerRefusal(s, o.tls());
    if (refusal !== undefined) {
      log.warning('migration proxy caller refused', { reason: refusal });
      s.on('error', () => undefined);
      s.destroy();
      return;
    }
    tunnels.accept(s);
  });
  server.on('tlsClientError', (err: Error & { code?: string }) => {
    log.warning('migration proxy handshake refused', { reason: err.code ?? err.message });
  });
  await listen(server, o);
  server.on('error', (err) => {
    log.error('migration proxy listener failed', { reason: err });
  });
  log.info('migration proxy listening on the target');
  return {
    address: `${o.host}:${o.port}`,
    port: o.port,
    connections: (): number => tunnels.count(),
    setTls: (t): void => {
      server.setSecureContext(serverOptions(t));
    },
    stop: async (): Promise<void> => {
      await stopServer(server, tunnels);
      log.info('migration proxy stopped listening');
    },
  };
}
