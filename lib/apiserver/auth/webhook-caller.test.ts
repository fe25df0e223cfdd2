// webhookCallerStatus over real TLS on 127.0.0.1:0, the server trusting every CA as the api's does, and the
// pure refusal texts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TLSSocket } from 'node:tls';
import { trustedCaPems } from './config.ts';
import { authenticate } from './index.ts';
import { makeAuthPki, probe, startProbeServer, type AuthPki, type ProbeServer } from './testing/tls.ts';
import { webhookCallerRefusal, webhookCallerStatus } from './webhook-caller.ts';

let pki: AuthPki;
let callers: ProbeServer;
let headers: ProbeServer;

beforeAll(async () => {
  pki = await makeAuthPki();
  const every = [...trustedCaPems(pki.config), pki.webhookClients.ca.pem];
  callers = await startProbeServer(
    pki,
    (s: TLSSocket) => webhookCallerStatus(s, pki.webhookClients) ?? 'ok',
    every,
  );
  const forged = { 'x-remote-user': ['system:admin'], 'x-remote-group': ['system:masters'] };
  headers = await startProbeServer(pki, (s: TLSSocket) => authenticate(s, forged, pki.config).ok, every);
}, 60_000);

afterAll(async () => {
  await Promise.all([callers.close(), headers.close()]);
});

const client = (name: string): AuthPki['clients'][string] => {
  const c = pki.clients[name];
  if (c === undefined) throw new Error(`no client ${name}`);
  return c;
};

describe('webhookCallerStatus', () => {
  it('lets the webhook client CA’s certificate with an allowed name call', async () => {
    expect(await probe(callers, pki, client('webhookClient'))).toBe('ok');
  });

  it('answers a caller without a certificate with 401', async () => {
    expect(await probe(callers, pki)).toMatchObject({
      kind: 'Status',
      code: 401,
      reason: 'Unauthorized',
      message: 'Unauthorized: the admission webhooks need a client certificate',
    });
  });

  it.each([
    [
      'webhookOther',
      'Unauthorized: the client certificate has common name "someone-else", which is not in --webhook-client-allowed-names',
    ],
    [
      'frontProxy',
      'Unauthorized: the client certificate is not accepted: it is not signed by the webhook client CA',
    ],
    [
      'virtualizationApi',
      'Unauthorized: the client certificate is not accepted: it is not signed by the webhook client CA',
    ],
    [
      'stranger',
      'Unauthorized: the client certificate is not accepted: it is not signed by the webhook client CA',
    ],
  ])('answers %s with 401', async (name, message) => {
    expect(await probe(callers, pki, client(name))).toMatchObject({ code: 401, message });
  });

  it('gives a webhook caller’s certificate no say over identity headers', async () => {
    expect(await probe(headers, pki, client('webhookClient'))).toBe(false);
    expect(await probe(headers, pki, client('frontProxy'))).toBe(true);
  });
});

describe('webhookCallerRefusal', () => {
  it.each<[string, Parameters<typeof webhookCallerRefusal>[0], string]>([
    [
      'an expired certificate',
      { verifiedBy: undefined, commonName: 'kube-api-rewriter', problem: 'expired' },
      'Unauthorized: the client certificate is not accepted: it has expired',
    ],
    [
      'no common name',
      { verifiedBy: 'webhook-client', commonName: undefined },
      'Unauthorized: the client certificate has no common name, which is not in --webhook-client-allowed-names',
    ],
  ])('refuses %s', (_what, peer, message) => {
    expect(webhookCallerRefusal(peer, pki.webhookClients)).toBe(message);
  });
});
