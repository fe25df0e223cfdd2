/**
 * The handler's REST server (kubevirt cmd/virt-handler/virt-handler.go runServer, pkg/virt-handler/rest,
 * tag v1.6.2; pkg/util/tls SetupTLSForVirtHandlerServer): HTTPS with mutual TLS on --console-server-port
 * (KubeVirt 8186, the Deckhouse virtualization module 4101). Only a client whose certificate the given CA
 * signed completes the handshake (the api role dials it), and its CN must be the required name (KubeVirt's `kubevirt.io:system:client:virt-handler`, the
 * name of the client certificate virt-api dials with), else the connection is dropped before any route. The CA,
 * certificate and key files are read again every few seconds and a usable new set serves the next connections
 * (KubeVirt's certificate managers). Routes: routes.ts; streams: upgrade.ts; commands and queries: lifecycle.ts.
 * The PEM contents are never logged; the file names only in errors.
 */
import { createSecureContext, type PeerCertificate, type TLSSocket } from 'node:tls';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import { realClock, type Clock } from '../../kernel/clock.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { KvError, errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { watchPemFiles, type PemWatch } from '../../kernel/tls/pem-watch.ts';
import { DEFAULT_PING_INTERVAL_MS } from '../../kernel/ws/relay.ts';
import { HANDLER_CLIENT_CN } from '../../kubevirt/certificate-names.ts';
import { restMetricsFor } from './metrics.ts';
import type { RestResolver } from './resolve.ts';
import { handleRequest, type RequestContext } from './requests.ts';
import { SessionSlots } from './sessions.ts';
import { openPortForward } from './port-forward.ts';
import { matchRoute } from './routes.ts';
import { openStream, WEBSOCKET_MESSAGE_BUFFER_SIZE, type StreamContext } from './upgrade.ts';

export const DEFAULT_CONSOLE_SERVER_PORT = 4101;
/** KubeVirt's websocket subprotocol for raw streams (kubevirt client-go subresources). */
export const PLAIN_STREAM_PROTOCOL = 'plain.kubevirt.io';
const CLOSE_GRACE_MS = 5_000;
/** The CN of the client certificate KubeVirt's virt-api dials the handlers with, which virt-handler requires. */
export const DEFAULT_CLIENT_COMMON_NAME = HANDLER_CLIENT_CN;

export interface RestTls {
  /** PEM of the CA that signs the clients' certificates (--client-ca-file). */
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Where they were read from, for error messages; with all three the files are watched for rotation. */
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

export interface RestServerOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly host?: string;
  readonly tls: RestTls;
  readonly resolver: RestResolver;
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  /** Websocket ping period; a session whose ping is unanswered one period later ends (default 30 s). */
  readonly pingIntervalMs?: number;
  readonly recorder?: EventRecorder;
  /**
   * The CN the client certificate's subject must carry (default DEFAULT_CLIENT_COMMON_NAME); '' accepts any
   * certificate the CA signed (KubeVirt's externally managed certificates).
   */
  readonly requiredClientCommonName?: string;
  /** How often the TLS files are read for a rotation (default DEFAULT_PEM_POLL_MS). */
  readonly tlsReloadIntervalMs?: number;
}

export interface RestServer {
  readonly port: number;
  /**
   * Serves new connections with this CA, certificate and key (rotated files, as KubeVirt's certificate managers
   * pick them up); open sessions keep theirs. Throws KV_ERR_CONFIG, keeping the old ones, when they are unusable.
   */
  reloadTls(tls: RestTls): void;
  /** Stops accepting, ends the open sessions (1001) and closes the connections. */
  close(): Promise<void>;
}

function secureOptions(t: RestTls): { ca: Buffer; cert: Buffer; key: Buffer } {
  try {
    createSecureContext({ ca: t.ca, cert: t.cert, key: t.key });
  } catch (err) {
    const files = [t.caFile, t.certFile, t.keyFile].filter((f) => f !== undefined).join(', ');
    throw new KvError(
      'KV_ERR_CONFIG',
      `console server TLS: unusable CA, certificate or key${files === '' ? '' : ` (${files})`}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  return { ca: t.ca, cert: t.cert, key: t.key };
}

/** Drops connections whose client certificate names someone else; logs refused handshakes (no PEM). */
function watchTls(server: Server, requiredCn: string, log: Logger): void {
  server.on('secureConnection', (s: TLSSocket) => {
    s.on('error', () => undefined);
    if (requiredCn === '') return;
    // Several CN attributes come as an array, which never equals the name.
    const cn: unknown = (s.getPeerCertificate() as Partial<PeerCertificate>).subject?.CN;
    if (cn !== requiredCn) {
      log.warning('console client refused: common name is invalid', { expected: requiredCn, cn });
      s.destroy();
    }
  });
  server.on('tlsClientError', (err: Error & { code?: string }) => {
    log.v(2).info('console TLS handshake refused', { reason: err.code ?? err.message });
  });
  server.on('clientError', (_err, socket: Duplex) => {
    socket.destroy();
  });
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (err: Error): void => {
      reject(
        new KvError('KV_ERR_CONFIG', `console server cannot listen on ${host}:${port}: ${err.message}`, {
          cause: err,
        }),
      );
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** The CA, certificate and key files watched, when all three are named: each usable new set is served. */
function watchedFiles(
  tls: RestTls,
  log: Logger,
  intervalMs: number | undefined,
  reload: (t: RestTls) => void,
): PemWatch | undefined {
  const { caFile, certFile, keyFile } = tls;
  if (caFile === undefined || certFile === undefined || keyFile === undefined) return undefined;
  return watchPemFiles({
    files: { ca: caFile, cert: certFile, key: keyFile },
    current: tls,
    apply: (next) => {
      const pem = (text: string | undefined): Buffer => Buffer.from(text ?? '');
      reload({ ...tls, ca: pem(next.ca), cert: pem(next.cert), key: pem(next.key) });
    },
    log,
    ...(intervalMs !== undefined && { intervalMs }),
  });
}

export async function startRestServer(o: RestServerOptions): Promise<RestServer> {
  const log = o.log.with({ server: 'console' });
  const metrics = restMetricsFor(o.registry);
  const slots = new SessionSlots();
  metrics.countSessionsWith((kind) => slots.count(kind));
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 1024 * 1024,
    perMessageDeflate: false,
    handleProtocols: (offered: Set<string>): string | false =>
      offered.has(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : false,
  });
  wss.on('error', (err) => {
    log.error('websocket server error', { reason: err });
  });
  const server: Server = createServer({
    ...secureOptions(o.tls),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
  });
  const requests: RequestContext = {
    resolver: o.resolver,
    log,
    answered: (route, code) => {
      metrics.answered(route, code);
    },
    ...(o.recorder !== undefined && { recorder: o.recorder }),
  };
  const ctx: StreamContext = {
    resolver: o.resolver,
    slots,
    wss,
    log,
    clock: o.clock ?? realClock,
    pingIntervalMs: o.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    answered: (route, code) => {
      metrics.answered(route, code);
    },
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handleRequest(requests, req, res).catch((err: unknown) => {
      log.error('console request failed', { reason: err });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(errorMessage(err));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const m = matchRoute(req.method ?? '', req.url ?? '');
    const opened =
      m.ok && m.route === 'portforward'
        ? openPortForward(ctx, { req, socket, head }, m)
        : openStream(ctx, req, socket, head);
    opened.catch((err: unknown) => {
      log.error('console stream failed', { reason: err });
      socket.destroy();
    });
  });
  watchTls(server, o.requiredClientCommonName ?? DEFAULT_CLIENT_COMMON_NAME, log);

  await listen(server, o.port, o.host ?? '0.0.0.0');
  server.on('error', (err) => {
    log.error('console server error', { reason: err });
  });
  const port = (server.address() as AddressInfo).port;
  log.info('console server listening', { port, bufferBytes: WEBSOCKET_MESSAGE_BUFFER_SIZE });
  const reloadTls = (t: RestTls): void => {
    server.setSecureContext(secureOptions(t));
  };
  const files = watchedFiles(o.tls, log, o.tlsReloadIntervalMs, reloadTls);
  return {
    port,
    reloadTls,
    close: async (): Promise<void> => {
      await files?.close();
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      slots.endAll();
      server.closeIdleConnections();
      wss.close();
      // Clients that do not answer the close frames are cut off.
      const late = (o.clock ?? realClock).after(CLOSE_GRACE_MS, () => {
        for (const ws of wss.clients) ws.terminate();
        server.closeAllConnections();
      });
      await closed;
      late.cancel();
    },
  };
}
