// peerFacts and authenticate() over real TLS on 127.0.0.1:0, with certificates made for the test.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TLSSocket } from 'node:tls';
import { FakeClock } from '../../kernel/clock.ts';
import { authenticate } from './index.ts';
import { peerFacts } from './peer.ts';
import {
  makeAuthPki,
  probe,
  probeResumed,
  startProbeServer,
  type AuthPki,
  type ProbeServer,
} from './testing/tls.ts';

let pki: AuthPki;
let facts: ProbeServer;
let authn: ProbeServer;
let clock: FakeClock | undefined;

const forgedHeaders = { 'x-remote-user': ['system:admin'], 'x-remote-group': ['system:masters'] };

beforeAll(async () => {
  pki = await makeAuthPki();
  facts = await startProbeServer(pki, (s: TLSSocket) => peerFacts(s, pki.config, clock));
  authn = await startProbeServer(pki, (s: TLSSocket) => authenticate(s, forgedHeaders, pki.config));
}, 60_000);

afterAll(async () => {
  await Promise.all([facts.close(), authn.close()]);
});

const client = (name: string): AuthPki['clients'][string] => {
  const c = pki.clients[name];
  if (c === undefined) throw new Error(`no client ${name}`);
  return c;
};

describe('peerFacts', () => {
  it('reports no certificate when the client sends none', async () => {
    expect(await probe(facts, pki)).toEqual({});
  });

  it.each([
    ['frontProxy', { verifiedBy: 'requestheader', commonName: 'front-proxy-client' }],
    ['otherName', { verifiedBy: 'requestheader', commonName: 'mallory' }],
    ['chained', { verifiedBy: 'requestheader', commonName: 'front-proxy-client' }],
    ['noUsage', { verifiedBy: 'requestheader', commonName: 'front-proxy-client' }],
    ['virtualizationApi', { verifiedBy: 'virtualization-ca', commonName: 'virtualization-api-proxy' }],
    ['virtualizationOther', { verifiedBy: 'virtualization-ca', commonName: 'virtualization-controller' }],
    ['stranger', { commonName: 'front-proxy-client', problem: 'untrusted' }],
    ['serverOnly', { commonName: 'front-proxy-client', problem: 'not-for-client-auth' }],
  ])('names the bundle that verified %s', async (name, want) => {
    expect(await probe(facts, pki, client(name))).toEqual(want);
  });

  it('still names the bundle on a resumed TLS session (the leaf is kept, the chain is not)', async () => {
    expect(await probeResumed(facts, pki, client('frontProxy'))).toEqual({
      reused: true,
      answer: { verifiedBy: 'requestheader', commonName: 'front-proxy-client' },
    });
  });

  it('refuses a chain through an intermediate on a resumed session, which no longer carries it', async () => {
    expect(await probeResumed(facts, pki, client('chained'))).toEqual({
      reused: true,
      answer: { commonName: 'front-proxy-client', problem: 'untrusted' },
    });
  });

  it('refuses what OpenSSL refused even when the config trusts it (a TLS ca without that bundle)', async () => {
    const narrow = await startProbeServer(pki, (s) => peerFacts(s, pki.config), [
      pki.config.requestHeader.ca.pem,
    ]);
    try {
      expect(await probe(narrow, pki, client('virtualizationApi'))).toEqual({
        commonName: 'virtualization-api-proxy',
        problem: 'untrusted',
      });
    } finally {
      await narrow.close();
    }
  });

  it.each([
    ['after the certificates expire', 3 * 86_400_000, 'expired'],
    ['before they are valid', -86_400_000, 'not-yet-valid'],
  ])('refuses a chain %s (time from the clock)', async (_what, offset, problem) => {
    clock = new FakeClock(Date.now() + offset);
    try {
      expect(await probe(facts, pki, client('frontProxy'))).toEqual({
        commonName: 'front-proxy-client',
        problem,
      });
    } finally {
      clock = undefined;
    }
  });
});

describe('authenticate', () => {
  it('answers a forged X-Remote-User without a certificate with 401', async () => {
    expect(await probe(authn, pki)).toEqual({
      ok: false,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized: a client certificate is required',
        reason: 'Unauthorized',
        code: 401,
      },
    });
  });

  it.each(['stranger', 'otherName', 'serverOnly', 'virtualizationOther', 'webhookClient'])(
    'answers 401 to %s, whatever its headers say',
    async (name) => {
      const r = (await probe(authn, pki, client(name))) as { ok: boolean; status: { code: number } };
      expect(r.ok).toBe(false);
      expect(r.status.code).toBe(401);
      expect(JSON.stringify(r)).not.toContain('system:admin');
    },
  );

  it.each([
    ['frontProxy', 'requestheader'],
    ['virtualizationApi', 'virtualization-ca'],
  ])('believes the headers %s sends', async (name, via) => {
    expect(await probe(authn, pki, client(name))).toEqual({
      ok: true,
      via,
      identity: { user: 'system:admin', groups: ['system:masters'], extra: {} },
    });
  });
});
