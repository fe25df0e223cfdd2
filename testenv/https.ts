/**
 * Plain node:https requests to the API server with the credentials of a kubeconfig (the kube client lives
 * in lib/kernel/kube; the test environment deliberately does not depend on it).
 */
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { KvError } from '../lib/kernel/errors/errors.ts';

/** PEM contents (not paths); token for clusters that use bearer auth. */
export interface Credentials {
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Of the JSON body; application/json unless given (e.g. application/merge-patch+json). */
  contentType?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Response {
  status: number;
  body: string;
}

/** Starts a request and resolves with the response head; the body stays a stream (for watches). */
export function openRequest(
  url: string,
  creds: Credentials,
  o: RequestOptions = {},
): Promise<IncomingMessage> {
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
  if (creds.token !== undefined) headers['authorization'] = `Bearer ${creds.token}`;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: o.method ?? 'GET',
      headers,
      ...(creds.ca === undefined ? {} : { ca: creds.ca }),
      ...(creds.cert === undefined ? {} : { cert: creds.cert }),
      ...(creds.key === undefined ? {} : { key: creds.key }),
      timeout: o.timeoutMs ?? 10_000,
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    });
    req.on('response', resolve);
    req.on('timeout', () => req.destroy(new KvError('KV_ERR_TIMEOUT', `request to ${url} timed out`)));
    req.on('error', (err) => {
      reject(
        err instanceof KvError
          ? err
          : new KvError('KV_ERR_TRANSPORT', `request to ${url} failed`, { cause: err }),
      );
    });
    req.end(payload);
  });
}

/** One request, whole body read as text. */
export async function httpsRequest(
  url: string,
  creds: Credentials,
  o: RequestOptions = {},
): Promise<Response> {
  const res = await openRequest(url, creds, o);
  res.setEncoding('utf8');
  let body = '';
  for await (const chunk of res) body += chunk as string;
  return { status: res.statusCode ?? 0, body };
}
