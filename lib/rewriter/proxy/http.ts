/**
 * HTTP plumbing shared by the kube-api and webhook proxies: header filtering both ways, content negotiation,
 * and the Status of an upstream failure (bodies and Status answers: lib/kernel/http/body.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { errorMessage, newStatus, type Status } from '../../kernel/errors/errors.ts';
import { redactSecrets } from '../../kernel/errors/redact.ts';
import type { HeaderMap } from './upstream.ts';

/** Hop-by-hop and framing headers: never forwarded as they are (RFC 9110 §7.6.1, plus framing we redo). */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

export interface ForwardHeaderOptions {
  /** Ask for JSON instead of protobuf, so the body can be rewritten (a JSON Table stays asked for). */
  forceJson: boolean;
}

const AS_TABLE = /;\s*as=Table(;|$)/i;

/**
 * The Accept to send for a body the rewriter reads: as it came unless it lists protobuf, which the rewriter
 * cannot read. Then JSON: the Tables asked for first (in either encoding, with their version and group, in
 * the client's order), plain JSON after them.
 */
function jsonAccept(accept: string): string {
  if (!accept.includes('protobuf')) return accept;
  const tables = accept
    .split(',')
    .map((range) => range.trim())
    .filter((range) => AS_TABLE.test(range))
    .map((range) => `application/json${range.slice(range.indexOf(';'))}`);
  return [...new Set([...tables, 'application/json'])].join(',');
}

export function upstreamHeaders(h: IncomingHttpHeaders, o: ForwardHeaderOptions): HeaderMap {
  const out: HeaderMap = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  const accept = stringOf(h['accept']);
  if (o.forceJson && accept !== undefined) out['accept'] = jsonAccept(accept);
  return out;
}

export interface ClientHeaderOptions {
  /** The body is re-encoded: drop Content-Length. */
  rewritten: boolean;
  /** The body was decompressed: drop Content-Encoding. */
  decoded: boolean;
}

export function clientHeaders(
  h: Readonly<Record<string, string | string[] | undefined>>,
  o: ClientHeaderOptions,
): HeaderMap {
  const out: HeaderMap = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || (HOP_BY_HOP.has(k) && !(k === 'content-length' && !o.rewritten))) continue;
    if (k === 'content-encoding' && o.decoded) continue;
    out[k] = v;
  }
  return out;
}

export function stringOf(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export function isJsonContentType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const media = (type.split(';')[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

/** A request body the rewriter reads: JSON, and server-side apply YAML (which clients send as JSON). */
export function isRewritableBody(type: string | undefined): boolean {
  return isJsonContentType(type) || (type ?? '').toLowerCase().startsWith('application/apply-patch+yaml');
}

export function contentEncoding(h: Readonly<Record<string, string | string[] | undefined>>): string {
  return (stringOf(h['content-encoding']) ?? '').trim().toLowerCase();
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // connecting took too long (the OS's timeout, or the client's own connect timeout)
  'ETIMEDOUT',
]);

function errorCode(err: unknown): string {
  const own = (err as { code?: unknown } | null)?.code;
  if (typeof own === 'string' && own !== '') return own;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : '';
}

/**
 * 503 when the API server cannot be reached, 502 when it was reached but the exchange failed. The reason
 * goes to the client: a credential an error message picked up is redacted.
 */
export function upstreamFailureStatus(err: unknown, upstream: string): Status {
  const code = errorCode(err);
  const reason = redactSecrets(`${code === '' ? '' : `${code}: `}${errorMessage(err)}`);
  if (UNREACHABLE.has(code)) return newStatus(503, `the API server ${upstream} is unavailable: ${reason}`);
  return newStatus(502, `the API server ${upstream} failed to answer: ${reason}`, {
    reason: 'InternalError',
  });
}
