/**
 * Test support: the API-server stand-in the proxy tests talk to. It is the kernel's recording fake
 * (lib/kernel/kube/testing/fake-api-server.ts), plain HTTP or HTTPS, with upgrades; this file only adds a
 * JSON writer that sets content-length, as the real API server does.
 */
import type { ServerResponse } from 'node:http';

export { FakeApiServer as FakeUpstream } from '../../../kernel/kube/testing/fake-api-server.ts';

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
