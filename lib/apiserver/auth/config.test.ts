import { beforeAll, describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import { KvError } from '../../kernel/errors/errors.ts';
import { makeTestPki, pemOf } from '../../../testenv/pki.ts';
import { CaBundle } from './ca-bundle.ts';
import {
  parseRequestHeaderConfig,
  namedTrust,
  parseVirtualizationCa,
  trustedCaPems,
  type ConfigMapData,
} from './config.ts';

let caPem: string;
let otherPem: string;
let data: Record<string, string>;

beforeAll(async () => {
  const pki = await makeTestPki([
    { name: 'front-proxy-ca', cn: 'front-proxy-ca' },
    { name: 'virtualization-ca', cn: 'virtualization-ca' },
  ]);
  caPem = pemOf(pki, 'front-proxy-ca').cert;
  otherPem = pemOf(pki, 'virtualization-ca').cert;
  data = {
    'client-ca-file': otherPem,
    'requestheader-client-ca-file': caPem,
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  };
}, 30_000);

function parseError(d: ConfigMapData): KvError {
  try {
    parseRequestHeaderConfig(d);
  } catch (err) {
    if (err instanceof KvError) return err;
    throw err;
  }
  throw new Error('parseRequestHeaderConfig accepted it');
}

describe('parseRequestHeaderConfig', () => {
  it('reads what kube-apiserver writes, header names lower-cased as Node has them', () => {
    const c = parseRequestHeaderConfig({ ...data, 'requestheader-uid-headers': '["X-Remote-Uid"]' });
    expect(c.ca.certificates.map((x) => x.subject)).toEqual(['CN=front-proxy-ca']);
    expect(c).toMatchObject({
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['x-remote-user'],
      uidHeaders: ['x-remote-uid'],
      groupHeaders: ['x-remote-group'],
      extraHeaderPrefixes: ['x-remote-extra-'],
    });
  });

  it('keeps several header names in order and trims them', () => {
    const c = parseRequestHeaderConfig({
      ...data,
      'requestheader-username-headers': '[" X-Remote-User ","X-Forwarded-User"]',
    });
    expect(c.usernameHeaders).toEqual(['x-remote-user', 'x-forwarded-user']);
  });

  it.each([
    ['an empty string', ''],
    ['[]', '[]'],
    ['null', 'null'],
  ])('reads allowed names given as %s as "any name"', (_what, value) => {
    expect(parseRequestHeaderConfig({ ...data, 'requestheader-allowed-names': value }).allowedNames).toEqual(
      [],
    );
  });

  it('has no uid headers when the key is absent (clusters before RemoteRequestHeaderUID)', () => {
    expect(parseRequestHeaderConfig(data).uidHeaders).toEqual([]);
  });

  it.each([
    'requestheader-client-ca-file',
    'requestheader-allowed-names',
    'requestheader-username-headers',
    'requestheader-group-headers',
    'requestheader-extra-headers-prefix',
  ])('refuses a ConfigMap without %s, naming the key', (key) => {
    const rest = Object.fromEntries(Object.entries(data).filter(([k]) => k !== key));
    const err = parseError(rest);
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toBe(`kube-system/extension-apiserver-authentication: key ${key} is missing`);
  });

  it.each([
    ['requestheader-group-headers', '[X-Remote-Group]', 'is not valid JSON'],
    ['requestheader-group-headers', '"X-Remote-Group"', 'is not a JSON array of strings'],
    ['requestheader-allowed-names', '["a", 1]', 'is not a JSON array of strings'],
    ['requestheader-extra-headers-prefix', '{"a":"b"}', 'is not a JSON array of strings'],
    ['requestheader-username-headers', '[]', 'lists no header'],
    ['requestheader-username-headers', '["X-Remote-User", "  "]', 'lists an empty header name'],
    ['requestheader-uid-headers', 'nope', 'is not valid JSON'],
    ['requestheader-client-ca-file', '   ', 'is missing'],
    ['requestheader-client-ca-file', 'not a certificate', 'holds no PEM certificate'],
  ])('refuses %s = %j: %s', (key, value, problem) => {
    const err = parseError({ ...data, [key]: value });
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toBe(`kube-system/extension-apiserver-authentication: key ${key} ${problem}`);
    // The value itself is never echoed (short ones like '[]' would match the wording by chance).
    if (value.trim().length > 2) expect(err.message).not.toContain(value);
  });

  it('names a broken PEM block by its position, never by its contents', () => {
    const broken = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n';
    const err = parseError({ ...data, 'requestheader-client-ca-file': caPem + broken });
    expect(err.message).toBe(
      'kube-system/extension-apiserver-authentication: key requestheader-client-ca-file: PEM block 2 is not a valid certificate',
    );
    expect(err.message).not.toContain('BEGIN');
  });

  it('skips blocks that are not certificates, as Kubernetes does', () => {
    const key = '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n';
    const c = parseRequestHeaderConfig({ ...data, 'requestheader-client-ca-file': key + caPem + otherPem });
    expect(c.ca.certificates.map((x) => x.subject)).toEqual(['CN=front-proxy-ca', 'CN=virtualization-ca']);
  });
});

describe('CaBundle', () => {
  it('never prints PEM text: JSON, inspect and strings show the count and subjects', () => {
    const bundle = CaBundle.parse(caPem + otherPem, 'test');
    const virtualization = { ca: bundle, allowedNames: ['virtualization-api-proxy'], namesFrom: 'test' };
    const config = { requestHeader: parseRequestHeaderConfig(data), virtualization };
    for (const text of [JSON.stringify(config), inspect(config, { depth: 10 }), String(bundle)]) {
      expect(text).not.toContain('BEGIN');
      expect(text).not.toContain(caPem.split('\n')[1]);
    }
    expect(JSON.parse(JSON.stringify(bundle))).toEqual({
      certificates: 2,
      subjects: ['CN=front-proxy-ca', 'CN=virtualization-ca'],
    });
    expect(bundle.pem).toBe(caPem + otherPem);
  });
});

describe('parseVirtualizationCa', () => {
  it('reads ca-bundle', () => {
    expect(parseVirtualizationCa({ 'ca-bundle': otherPem }).certificates).toHaveLength(1);
  });

  it('refuses a ConfigMap without ca-bundle, naming it', () => {
    expect(() => parseVirtualizationCa({ 'ca.crt': otherPem })).toThrow(
      new KvError('KV_ERR_CONFIG', 'virtualization-ca: key ca-bundle is missing'),
    );
  });
});

describe('trustedCaPems', () => {
  it('lists the request-header CA, then the virtualization-ca when there is one', () => {
    const requestHeader = parseRequestHeaderConfig(data);
    expect(trustedCaPems({ requestHeader })).toEqual([caPem]);
    const virtualization = namedTrust({ pem: otherPem, from: 'f' }, { list: ['n'], from: 'g' });
    expect(trustedCaPems({ requestHeader, virtualization })).toEqual([caPem, otherPem]);
  });
});

describe('namedTrust', () => {
  it('keeps the names trimmed, without empty ones, and where they come from', () => {
    const t = namedTrust(
      { pem: otherPem, from: '--client-ca-file' },
      { list: [' virtualization-api-proxy ', '', 'b'], from: '--client-ca-allowed-names' },
    );
    expect(t).toMatchObject({
      allowedNames: ['virtualization-api-proxy', 'b'],
      namesFrom: '--client-ca-allowed-names',
    });
    expect(t.ca.certificates).toHaveLength(1);
  });

  it.each([[[]], [['', ' ']]])('refuses a list with no name (%j), naming the flags', (list) => {
    expect(() =>
      namedTrust({ pem: otherPem, from: '--client-ca-file' }, { list, from: '--client-ca-allowed-names' }),
    ).toThrow(
      new KvError(
        'KV_ERR_CONFIG',
        '--client-ca-allowed-names lists no name: the certificates of --client-ca-file are accepted only with a common name it lists',
      ),
    );
  });
});
