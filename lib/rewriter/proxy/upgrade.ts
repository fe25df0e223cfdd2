/**
 * Upgrade requests (exec, attach, port-forward over SPDY or WebSocket) pass through untouched: the request
 * head goes to the API server with the renamed path and our Host, as the identity identity.ts decides (the
 * client's Authorization over a connection without our certificate, or our token and certificate); from then
 * on both sockets are piped raw, both ways, until either side closes.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Status } from '../../kernel/errors/errors.ts';
import { renameContext } from '../../rename/context.ts';
import { parseTarget, targetUrl } from '../../rename/target.ts';
import { rewriteTarget } from '../../rename/target-rewrite.ts';
import { upstreamFailureStatus } from './http.ts';
import type { KubeApiDeps } from './deps.ts';
import { admit } from './identity.ts';
import { baseLabels, RequestRecorder } from './recorder.ts';
import type { Identity } from './upstream.ts';

export interface UpgradeRequest {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  /** Registers a socket the proxy must cut on shutdown. */
  readonly track: (s: Duplex) => void;
}

export async function handleUpgrade(kubeApiDeps: KubeApiDeps, upgradeRequest: UpgradeRequest): Promise<void> {
  const { req, socket } = upgradeRequest;
  socket.on('error', () => socket.destroy());
  const target = parseTarget(req.url ?? '/', kubeApiDeps.index);
  const rec = new RequestRecorder(
    kubeApiDeps.metrics,
    baseLabels('kube-api', target, req.method, kubeApiDeps.index),
    'pass',
  );
  const admission = admit(req.headers, target, kubeApiDeps.credentialLess);
  if ('refused' in admission) {
    writeRawStatus(socket, admission.refused);
    rec.handled(admission.refused.code);
    return;
  }
  const url = targetUrl(rewriteTarget(target, renameContext(kubeApiDeps.index)));
  let conn: Socket;
  try {
    conn = await kubeApiDeps.upstream.connect(admission.as);
  } catch (err) {
    rec.targetResponse(0, true);
    const status = upstreamFailureStatus(err, kubeApiDeps.upstream.url.origin);
    writeRawStatus(socket, status);
    rec.handled(status.code, true);
    return;
  }
  upgradeRequest.track(conn);
  conn.on('error', () => conn.destroy());
  conn.once('data', (first: Buffer) => {
    const code = /^HTTP\/1\.[01] (\d{3})/.exec(first.toString('latin1', 0, 16))?.[1];
    rec.targetResponse(Number(code ?? 0), code === undefined);
  });
  conn.once('close', () => {
    socket.destroy();
    rec.handled();
  });
  socket.once('close', () => conn.destroy());
  conn.write(await requestHead(kubeApiDeps, { req, url, as: admission.as }));
  if (upgradeRequest.head.length > 0) conn.write(upgradeRequest.head);
  socket.pipe(conn);
  conn.pipe(socket);
}

/**
 * The request line and headers for the API server, in the client's order and spelling; as the rewriter, any
 * Authorization the client sent (an empty one) gives way to our token.
 */
async function requestHead(
  kubeApiDeps: KubeApiDeps,
  o: { req: IncomingMessage; url: string; as: Identity },
): Promise<string> {
  const { upstream } = kubeApiDeps;
  const lines = [`${o.req.method ?? 'GET'} ${upstream.pathOf(o.url)} HTTP/1.1`, `Host: ${upstream.host}`];
  const raw = o.req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (lower === 'host' || (lower === 'authorization' && o.as === 'rewriter')) continue;
    lines.push(`${name}: ${raw[i + 1] as string}`);
  }
  if (o.as === 'rewriter') {
    const auth = (await upstream.authorized({}, 'rewriter'))['authorization'];
    if (typeof auth === 'string') lines.push(`Authorization: ${auth}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function writeRawStatus(socket: Duplex, status: Status): void {
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
