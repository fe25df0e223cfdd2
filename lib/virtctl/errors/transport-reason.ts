/**
 * Why a connection to the API server failed, in words, from the error codes along the cause chain (Node's
 * errno and TLS codes, as node:http reports them): connection refused, name not found, TLS verification, timeouts. Pure.
 */
import { errorMessage } from '../../kernel/errors/errors.ts';

/** The error and its causes, read by shape (errors from another realm are no `instanceof Error`). */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let cur = err; typeof cur === 'object' && cur !== null && out.length < 8;) {
    out.push(cur);
    cur = (cur as { cause?: unknown }).cause;
  }
  return out;
}

/** The message of an error read by shape. */
export function messageOf(e: unknown): string {
  const m = (e as { message?: unknown } | null)?.message;
  return typeof m === 'string' ? m : errorMessage(e);
}

/** The code of an error read by shape (Node's errno, TLS), never a KV_ERR_ one. */
export function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && !code.startsWith('KV_ERR_') ? code : undefined;
}

const PLAIN: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed (DNS)',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

function isTls(code: string): boolean {
  return /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code) || code === 'EPROTO';
}

export function transportReason(err: unknown): string {
  const links = chain(err);
  const innermost = links[links.length - 1];
  const detail = messageOf(innermost);
  for (const e of links) {
    const code = codeOf(e);
    if (code === undefined) continue;
    if (isTls(code)) {
      return `TLS failed (${code}: ${detail}); check certificate-authority and the client certificate in the kubeconfig`;
    }
    const plain = PLAIN[code];
    if (plain !== undefined) return `${plain} (${detail})`;
  }
  return detail;
}
