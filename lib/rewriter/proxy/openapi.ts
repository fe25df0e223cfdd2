/**
 * OpenAPI through the kube-api proxy, so that `kubectl explain vm.spec` works (kube-apiserver serves the CRD
 * schemas only under the internal names): /openapi/v3, /openapi/v3/apis/<kubevirt group>/<v> (asked for under
 * the renamed group) and /openapi/v2 as JSON are read whole and restored (lib/rename/openapi.ts); a renamed
 * group's own document is 404. The answer is JSON with its own Content-Length and ETag (a hash of what is
 * sent, so If-None-Match is answered here with 304); a redirect's Location (a stale hash) names the original
 * group.
 * v2 asked as protobuf is not restored: it passes through untouched like any other path.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { HttpResponse } from '../../kernel/http/response.ts';
import { newStatus, type Status } from '../../kernel/errors/errors.ts';
import { sendStatus } from '../../kernel/http/body.ts';
import { restoreContext } from '../../rename/context.ts';
import { isRecord } from '../../rename/json.ts';
import { restoreOpenApiDocument } from '../../rename/openapi.ts';
import { openApiRoute, restoreOpenApiUrl, type OpenApiRoute } from '../../rename/openapi-route.ts';
import type { RuleIndex } from '../../rename/rules/rule-index.ts';
import type { ApiTarget } from '../../rename/target.ts';
import { clientHeaders, contentEncoding, stringOf, upstreamFailureStatus, upstreamHeaders } from './http.ts';
import type { RequestRecorder } from './recorder.ts';
import type { KubeApiDeps } from './deps.ts';
import type { HeaderMap, Identity } from './upstream.ts';

export interface OpenApiExchange extends Pick<KubeApiDeps, 'upstream' | 'index' | 'log'> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: ApiTarget;
  readonly route: OpenApiRoute;
  readonly as: Identity;
  readonly rec: RequestRecorder;
  readonly signal: AbortSignal;
}

/** The route of a request the proxy restores itself; undefined for everything that passes as usual. */
export function openApiRouteOf(
  req: IncomingMessage,
  target: ApiTarget,
  rules: RuleIndex,
): OpenApiRoute | undefined {
  const route = openApiRoute(target.path, rules);
  if (route === undefined || route.kind === 'hidden') return route;
  if (req.method !== 'GET') return undefined;
  const accept = stringOf(req.headers.accept) ?? '';
  return route.kind === 'v2' && accept.includes('protobuf') ? undefined : route;
}

/** Besides hop-by-hop headers, not forwarded: the body must come back whole, as JSON, uncompressed. */
const DROPPED: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
]);

function openApiHeaders(h: IncomingHttpHeaders): HeaderMap {
  const kept = Object.entries(upstreamHeaders(h, { forceJson: false })).filter(([k]) => !DROPPED.has(k));
  return { ...Object.fromEntries(kept), accept: 'application/json' };
}

async function readAll(x: OpenApiExchange, up: HttpResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of up.body as AsyncIterable<Buffer>) {
    x.rec.fromTarget(chunk.length);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(x: OpenApiExchange, code: number, headers: HeaderMap, body: Buffer): void {
  x.res.writeHead(code, { ...headers, 'content-length': String(body.length) });
  x.res.end(body);
  x.rec.toClient(body.length);
  x.rec.handled(code);
}

/** The restored body, or undefined when the answer is not a JSON document to restore (sent as it came). */
function restoredBody(x: OpenApiExchange, up: HttpResponse, raw: Buffer): Buffer | undefined {
  const kind = x.route.kind;
  if (kind === 'hidden' || up.statusCode !== 200) return undefined;
  // kube-apiserver sends these documents as text/plain (Go's sniffed type): the body decides.
  if (!['', 'identity'].includes(contentEncoding(up.headers))) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    x.rec.invalidJson();
    return undefined;
  }
  if (!isRecord(doc)) return undefined;
  const out = x.rec.rewrite('target', 'restore', () =>
    restoreOpenApiDocument(kind, doc, restoreContext(x.index)),
  );
  return Buffer.from(JSON.stringify(out));
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
}

function relay(x: OpenApiExchange, up: HttpResponse, raw: Buffer): void {
  const headers = clientHeaders(up.headers, { rewritten: true, decoded: false });
  const location = stringOf(up.headers['location']);
  if (location !== undefined) headers['location'] = restoreOpenApiUrl(location, restoreContext(x.index));
  const body = restoredBody(x, up, raw);
  if (body === undefined) {
    send(x, up.statusCode, headers, raw);
    return;
  }
  const etag = etagOf(body);
  headers['etag'] = etag;
  headers['content-type'] = 'application/json';
  delete headers['content-encoding'];
  if (
    stringOf(x.req.headers['if-none-match'])
      ?.split(/\s*,\s*/)
      .includes(etag) === true
  ) {
    send(x, 304, headers, Buffer.alloc(0));
    return;
  }
  send(x, 200, headers, body);
}

function fail(x: OpenApiExchange, status: Status): void {
  x.rec.toClient(sendStatus(x.res, status));
  x.rec.handled(status.code, status.code >= 500);
}

/** Serves one OpenAPI request of openApiRouteOf. Resolves when the client has the answer. */
export async function serveOpenApi(x: OpenApiExchange): Promise<void> {
  if (x.route.kind === 'hidden') {
    fail(x, newStatus(404, 'the server could not find the requested resource', { reason: 'NotFound' }));
    return;
  }
  const path = x.route.kind === 'group-version' ? x.route.upstreamPath : x.target.path;
  let up: HttpResponse;
  try {
    up = await x.upstream.request({
      method: 'GET',
      url: x.target.query === '' ? path : `${path}?${x.target.query}`,
      headers: openApiHeaders(x.req.headers),
      signal: x.signal,
      as: x.as,
    });
  } catch (err) {
    x.rec.targetResponse(0, true);
    if (x.signal.aborted) return;
    x.log.warning('API server request failed', { reason: err, method: 'GET', path: x.target.path });
    fail(x, upstreamFailureStatus(err, x.upstream.url.origin));
    return;
  }
  x.rec.toTarget(0);
  x.rec.targetResponse(up.statusCode);
  try {
    relay(x, up, await readAll(x, up));
  } catch (err) {
    if (x.signal.aborted) return;
    x.log.warning('relaying the answer failed', { reason: err, path: x.target.path });
    if (x.res.headersSent) x.res.destroy();
    else fail(x, upstreamFailureStatus(err, x.upstream.url.origin));
  } finally {
    if (!up.body.destroyed) up.body.destroy();
  }
}
