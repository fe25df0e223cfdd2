import { beforeAll, describe, expect, it } from '@jest/globals';
import { makeTestPki, pemOf } from '../../../testenv/pki.ts';
import { namedTrust, parseRequestHeaderConfig, type AuthConfig } from './config.ts';
import type { HeaderValues } from './headers.ts';
import { identify, type PeerFacts } from './identity.ts';

let withNames: AuthConfig;
let anyName: AuthConfig;

beforeAll(async () => {
  const pki = await makeTestPki([
    { name: 'ca', cn: 'front-proxy-ca' },
    { name: 'virtualization-ca', cn: 'virtualization-ca' },
  ]);
  const data = {
    'requestheader-client-ca-file': pemOf(pki, 'ca').cert,
    'requestheader-allowed-names': '["front-proxy-client","aggregator"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-uid-headers': '["X-Remote-Uid"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  };
  const virtualization = namedTrust(
    { pem: pemOf(pki, 'virtualization-ca').cert, from: '--client-ca-file' },
    { list: ['virtualization-api-proxy'], from: '--client-ca-allowed-names' },
  );
  withNames = { requestHeader: parseRequestHeaderConfig(data), virtualization };
  anyName = {
    requestHeader: parseRequestHeaderConfig({ ...data, 'requestheader-allowed-names': '[]' }),
    virtualization,
  };
}, 30_000);

const proxied: HeaderValues = {
  'x-remote-user': ['alice'],
  'x-remote-uid': ['uid-1'],
  'x-remote-group': ['dev', 'system:authenticated'],
  'x-remote-extra-scopes': ['view'],
};
const forged: HeaderValues = { 'x-remote-user': ['system:admin'], 'x-remote-group': ['system:masters'] };

const frontProxy: PeerFacts = { verifiedBy: 'requestheader', commonName: 'front-proxy-client' };
const virtualizationApi: PeerFacts = {
  verifiedBy: 'virtualization-ca',
  commonName: 'virtualization-api-proxy',
};

describe('identify', () => {
  it('takes user, uid, groups and extra from a front proxy with an allowed name', () => {
    expect(identify(frontProxy, withNames, proxied)).toEqual({
      ok: true,
      via: 'requestheader',
      identity: {
        user: 'alice',
        uid: 'uid-1',
        groups: ['dev', 'system:authenticated'],
        extra: { scopes: ['view'] },
      },
    });
  });

  it('takes the headers from a virtualization-ca certificate with an allowed name (Deckhouse mode)', () => {
    const headers = {
      'x-remote-user': ['system:serviceaccount:ns:sa'],
      'x-remote-group': ['system:serviceaccounts'],
    };
    expect(identify(virtualizationApi, withNames, headers)).toEqual({
      ok: true,
      via: 'virtualization-ca',
      identity: { user: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts'], extra: {} },
    });
  });

  it('accepts any request-header certificate when no names are listed', () => {
    const r = identify({ verifiedBy: 'requestheader', commonName: 'whoever' }, anyName, proxied);
    expect(r.ok).toBe(true);
  });

  it('never takes a virtualization-ca certificate by its CA alone, even where any request-header one would do', () => {
    const r = identify({ verifiedBy: 'virtualization-ca', commonName: 'whoever' }, anyName, forged);
    expect(r).toMatchObject({ ok: false, code: 401 });
  });

  it.each<[string, PeerFacts, string]>([
    [
      'no certificate',
      { verifiedBy: undefined, commonName: undefined },
      'Unauthorized: a client certificate is required',
    ],
    [
      'a certificate from another CA',
      { verifiedBy: undefined, commonName: 'front-proxy-client', problem: 'untrusted' },
      'Unauthorized: the client certificate is not accepted: it is not signed by a CA trusted for proxied requests',
    ],
    [
      'an expired certificate',
      { verifiedBy: undefined, commonName: 'front-proxy-client', problem: 'expired' },
      'Unauthorized: the client certificate is not accepted: it has expired',
    ],
    [
      'a server-only certificate',
      { verifiedBy: undefined, commonName: 'front-proxy-client', problem: 'not-for-client-auth' },
      'Unauthorized: the client certificate is not accepted: its extended key usage does not allow client authentication',
    ],
    [
      'a request-header certificate with a name not allowed',
      { verifiedBy: 'requestheader', commonName: 'mallory' },
      'Unauthorized: the client certificate has common name "mallory", which is not in requestheader-allowed-names',
    ],
    [
      'a request-header certificate without a common name',
      { verifiedBy: 'requestheader', commonName: undefined },
      'Unauthorized: the client certificate has no common name, which is not in requestheader-allowed-names',
    ],
    [
      'a virtualization-ca certificate with a name not allowed',
      { verifiedBy: 'virtualization-ca', commonName: 'virtualization-controller' },
      'Unauthorized: the client certificate has common name "virtualization-controller", which is not in --client-ca-allowed-names',
    ],
    [
      'a virtualization-ca certificate without a common name',
      { verifiedBy: 'virtualization-ca', commonName: undefined },
      'Unauthorized: the client certificate has no common name, which is not in --client-ca-allowed-names',
    ],
  ])('refuses %s with 401 without reading a forged X-Remote-User', (_what, peer, message) => {
    const r = identify(peer, withNames, forged);
    expect(r).toEqual({ ok: false, code: 401, message });
    expect(JSON.stringify(r)).not.toContain('system:admin');
  });

  it.each<[string, HeaderValues]>([
    ['no user header', { 'x-remote-group': ['dev'] }],
    ['an empty user header', { 'x-remote-user': [''] }],
  ])('refuses an accepted certificate with %s, saying so', (_what, headers) => {
    expect(identify(frontProxy, withNames, headers)).toEqual({
      ok: false,
      code: 401,
      message:
        'Unauthorized: the client certificate is accepted but no user name header (x-remote-user) is set',
    });
  });

  it('leaves uid out when no uid header is set, and groups empty when none is', () => {
    const r = identify(frontProxy, withNames, { 'x-remote-user': ['alice'] });
    expect(r).toEqual({ ok: true, via: 'requestheader', identity: { user: 'alice', groups: [], extra: {} } });
  });
});
