/**
 * Test support: one HTTPS request with an optional client certificate, answered as its status, text and
 * headers (a JSON body gets its content type). Rejects only when no response came.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';

export interface HttpsAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: IncomingHttpHeaders;
}

export interface HttpsCall {
  readonly method: string;
  readonly ca?: string | Buffer | undefined;
  readonly cert?: string | Buffer | undefined;
  readonly key?: string | Buffer | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export function httpsCall(url: URL, o: HttpsCall): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.method,
        agent: false,
        ...(o.ca !== undefined && { ca: o.ca }),
        ...(o.cert !== undefined && { cert: o.cert }),
        ...(o.key !== undefined && { key: o.key }),
        headers: { ...o.headers, ...(o.body !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}
