import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { KvError } from '../errors/errors.ts';
import { loadRestConfig, type LoadRestConfigOptions, type RestConfig } from './config.ts';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';

let tls: TlsFixture;
let dir: string;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

interface KcSpec {
  clusters: Record<string, Record<string, unknown>>;
  users: Record<string, Record<string, unknown>>;
  contexts: Record<string, { cluster: string; user: string; namespace?: string }>;
  current?: string;
}

/** Writes a kubeconfig (JSON is valid YAML) and returns its path. */
function writeKubeconfig(name: string, spec: KcSpec): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: Object.entries(spec.clusters).map(([n, cluster]) => ({ name: n, cluster })),
    users: Object.entries(spec.users).map(([n, user]) => ({ name: n, user })),
    contexts: Object.entries(spec.contexts).map(([n, context]) => ({ name: n, context })),
    'current-context': spec.current ?? Object.keys(spec.contexts)[0],
  };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

function load(opts: LoadRestConfigOptions): RestConfig {
  return loadRestConfig({ env: {}, ...opts });
}

function configError(opts: LoadRestConfigOptions): KvError {
  try {
    load(opts);
  } catch (err) {
    if (err instanceof KvError) return err;
    throw err;
  }
  throw new Error('expected loadRestConfig to fail');
}

beforeAll(async () => {
  tls = await makeTlsFixture();
  dir = mkdtempSync(join(tmpdir(), 'kv-kube-config-'));
});
afterAll(() => {
  tls.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('loadRestConfig from a kubeconfig file', () => {
  it('reads embedded certificates and a token, with default limits', () => {
    const file = writeKubeconfig('embedded', {
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(tls.cert) } },
      users: {
        u: { 'client-certificate-data': b64(tls.cert), 'client-key-data': b64(tls.key), token: 'tok\n' },
      },
      contexts: { ctx: { cluster: 'c', user: 'u', namespace: 'team' } },
    });
    expect(load({ kubeconfig: file })).toEqual({
      server: 'https://127.0.0.1:6443',
      ca: tls.cert,
      cert: tls.cert,
      key: tls.key,
      token: 'tok',
      namespace: 'team',
      qps: 50,
      burst: 100,
      userAgent: 'kubevirt-ts',
    });
  });

  it('reads certificate files, relative to the kubeconfig directory', () => {
    const sub = join(dir, 'rel');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'ca.pem'), tls.cert);
    writeFileSync(join(sub, 'key.pem'), tls.key);
    const file = writeKubeconfig('rel/kubeconfig', {
      clusters: { c: { server: 'https://localhost:1', 'certificate-authority': 'ca.pem' } },
      users: { u: { 'client-certificate': tls.certFile, 'client-key': 'key.pem' } },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    const cfg = load({ kubeconfig: file, qps: 7, burst: 9, userAgent: 'virt-controller/test' });
    expect(cfg).toMatchObject({ ca: tls.cert, cert: tls.cert, key: tls.key, qps: 7, burst: 9 });
    expect(cfg.userAgent).toBe('virt-controller/test');
  });

  it('keeps insecure-skip-tls-verify, which also allows a plain http server', () => {
    const file = writeKubeconfig('insecure', {
      clusters: { c: { server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true } },
      users: { u: {} },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    expect(load({ kubeconfig: file, onWarning: () => undefined })).toMatchObject({
      server: 'http://127.0.0.1:8080',
      insecureSkipTLSVerify: true,
    });
  });

  it('reads a token-file when loading', () => {
    const tokenFile = join(dir, 'user-token');
    writeFileSync(tokenFile, 'from-file\n');
    const file = writeKubeconfig('tokenfile', {
      clusters: { c: { server: 'https://h:1' } },
      users: { u: { 'token-file': tokenFile } },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    expect(load({ kubeconfig: file }).token).toBe('from-file');
  });

  it('reads a relative token-file from the kubeconfig directory', () => {
    mkdirSync(join(dir, 'tokrel'), { recursive: true });
    writeFileSync(join(dir, 'tokrel', 'token'), 'relative-token\n');
    const file = writeKubeconfig('tokrel/kubeconfig', {
      clusters: { c: { server: 'https://h:1' } },
      users: { u: { 'token-file': 'token' } },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    expect(load({ kubeconfig: file }).token).toBe('relative-token');
  });

  it('names an unreadable token-file', () => {
    const file = writeKubeconfig('tokmissing', {
      clusters: { c: { server: 'https://h:1' } },
      users: { u: { 'token-file': '/nonexistent/token' } },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    expect(configError({ kubeconfig: file }).message).toBe(
      `token-file of user "u" in kubeconfig ${file} (--kubeconfig): cannot read /nonexistent/token (ENOENT: no such file or directory)`,
    );
  });

  it('--context picks another context', () => {
    const file = writeKubeconfig('two', {
      clusters: { a: { server: 'https://a:1' }, b: { server: 'https://b:2' } },
      users: { u: { token: 't' } },
      contexts: { ca: { cluster: 'a', user: 'u' }, cb: { cluster: 'b', user: 'u' } },
      current: 'ca',
    });
    expect(load({ kubeconfig: file }).server).toBe('https://a:1');
    expect(load({ kubeconfig: file, context: 'cb' }).server).toBe('https://b:2');
    expect(configError({ kubeconfig: file, context: 'nope' }).message).toMatch(
      /context "nope" not found.*ca, cb/,
    );
  });

  it('merges the KUBECONFIG list, the first file winning', () => {
    const first = writeKubeconfig('first', {
      clusters: { shared: { server: 'https://first:1' } },
      users: { u: { token: 'one' } },
      contexts: { main: { cluster: 'shared', user: 'u' } },
    });
    const second = writeKubeconfig('second', {
      clusters: { shared: { server: 'https://second:2' }, other: { server: 'https://other:3' } },
      users: { u: { token: 'two' } },
      contexts: { alt: { cluster: 'other', user: 'u' } },
    });
    const env = { KUBECONFIG: `${first}:${second}` };
    expect(load({ env })).toMatchObject({ server: 'https://first:1', token: 'one' });
    expect(load({ env, context: 'alt' })).toMatchObject({ server: 'https://other:3', token: 'one' });
  });

  it.each<[string, KcSpec, RegExp]>([
    [
      'plain http without insecure-skip-tls-verify',
      {
        clusters: { c: { server: 'http://h:80' } },
        users: { u: {} },
        contexts: { x: { cluster: 'c', user: 'u' } },
      },
      /must be https:\/\//,
    ],
    [
      'exec credential plugins',
      {
        clusters: { c: { server: 'https://h:1' } },
        users: { u: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } } },
        contexts: { x: { cluster: 'c', user: 'u' } },
      },
      /exec credential plugins, which is not supported/,
    ],
    [
      'a context naming a missing cluster',
      { clusters: {}, users: { u: {} }, contexts: { x: { cluster: 'gone', user: 'u' } } },
      /names cluster "gone", which is not defined/,
    ],
    [
      'an unreadable CA file',
      {
        clusters: { c: { server: 'https://h:1', 'certificate-authority': '/nonexistent/ca.pem' } },
        users: { u: {} },
        contexts: { x: { cluster: 'c', user: 'u' } },
      },
      /^certificate-authority of cluster "c" in kubeconfig .*: cannot read \/nonexistent\/ca.pem \(ENOENT: no such file or directory\)$/,
    ],
  ])('rejects %s with KV_ERR_CONFIG', (name, spec, message) => {
    const err = configError({ kubeconfig: writeKubeconfig(name.replace(/\W/g, '-'), spec) });
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toMatch(message);
  });

  it('names the missing file', () => {
    const err = configError({ kubeconfig: join(dir, 'absent') });
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toContain(join(dir, 'absent'));
  });

  it('rejects a burst below 1', () => {
    const file = writeKubeconfig('burst', {
      clusters: { c: { server: 'https://h:1' } },
      users: { u: {} },
      contexts: { x: { cluster: 'c', user: 'u' } },
    });
    expect(configError({ kubeconfig: file, burst: 0 }).message).toMatch(/burst/);
  });
});

describe('loadRestConfig: a failing kubeconfig says where and what, never what the file holds', () => {
  const TOKEN = 'kv-test-token-5f0c1e9a7d';
  const KEY_TEXT = 'KV-TEST-KEY-MATERIAL-77ab';
  const keyData = b64(`-----BEGIN PRIVATE KEY-----\n${KEY_TEXT}\n-----END PRIVATE KEY-----\n`);
  const lines = (...l: string[]): string => l.join('\n') + '\n';
  const head = ['apiVersion: v1', 'kind: Config', 'users:', '- name: u', '  user:'];
  const ctx = (user: Record<string, unknown>): KcSpec => ({
    clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(tls.cert) } },
    users: { u: user },
    contexts: { x: { cluster: 'c', user: 'u' } },
  });

  function failing(file: string): KvError {
    const err = configError({ kubeconfig: file });
    expect(err.code).toBe('KV_ERR_CONFIG');
    return err;
  }

  /** The error, its cause chain and its stack, as any logger or crash handler could print them. */
  const everything = (err: KvError): string => `${inspect(err, { depth: 10 })} ${err.stack ?? ''}`;

  it.each<[string, string, string, string]>([
    [
      'a syntax error next to a token',
      lines(...head, `    token: ${TOKEN}`, '   bad: [', 'contexts: []'),
      'not valid YAML (line 7, column 1)',
      TOKEN,
    ],
    [
      'a syntax error next to a client key',
      lines(...head, `    client-key-data: ${keyData}`, '     x: ['),
      'not valid YAML (line 6, column 22)',
      keyData.slice(0, 16),
    ],
    [
      'an unclosed quote after a token',
      lines(...head, `    token: "${TOKEN}`),
      'not valid YAML (line 7, column 1)',
      TOKEN,
    ],
  ])('%s: names the file, line and column, quotes nothing', (name, text, what, secret) => {
    const file = join(dir, name.replace(/\W/g, '-'));
    writeFileSync(file, text);
    const err = failing(file);
    expect(err.message).toBe(`kubeconfig ${file} (--kubeconfig): ${what}: fix the file at that line`);
    expect(everything(err)).not.toContain(secret);
  });

  it.each<[string, string, RegExp]>([
    [
      'an empty file',
      '',
      /: not a kubeconfig \(expected a YAML mapping with clusters, users and contexts\)$/,
    ],
    ['a bare token', `${TOKEN}\n`, /: not a kubeconfig \(expected a YAML mapping/],
    [
      'a cluster without a server',
      'clusters:\n- name: c\n  cluster: {}\n',
      /: clusters\[0\]\.cluster\.server is missing$/,
    ],
    [
      'a token that is a number',
      'users:\n- name: u\n  user:\n    token: 5150\n',
      /: users\[0\]\.user\.token must be a string, not a number$/,
    ],
    ['two documents', 'clusters: []\n---\nusers: []\n', /: holds more than one YAML document$/],
  ])('%s: says what is wrong with it', (name, text, message) => {
    const file = join(dir, name.replace(/\W/g, '-'));
    writeFileSync(file, text);
    const err = failing(file);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`kubeconfig ${file}`);
    expect(everything(err)).not.toContain(TOKEN);
  });

  it.each<[string, () => Record<string, unknown>, RegExp]>([
    [
      'a client key that is not a PEM key',
      () => ({ 'client-certificate-data': b64(tls.cert), 'client-key-data': keyData }),
      /client-key of user "u" in kubeconfig .*: not a PEM private key \(ERR_OSSL_\w+\)/,
    ],
    [
      'a client certificate that is not a PEM certificate',
      () => ({ 'client-certificate-data': keyData, 'client-key-data': b64(tls.key) }),
      /client-certificate of user "u" in kubeconfig .*: not a PEM certificate/,
    ],
    [
      'a client certificate without its key',
      () => ({ 'client-certificate-data': b64(tls.cert) }),
      /user "u" in kubeconfig .* has a client-certificate but no client-key: add client-key or client-key-data/,
    ],
    [
      'a token with a line break inside',
      () => ({ token: `${TOKEN}\nX-Injected: 1` }),
      /token of user "u" in kubeconfig .*: holds characters an HTTP header cannot carry/,
    ],
  ])('%s: fails at load time and quotes nothing', (name, user, message) => {
    const err = failing(writeKubeconfig(name.replace(/\W/g, '-'), ctx(user())));
    expect(err.message).toMatch(message);
    expect(everything(err)).not.toContain(KEY_TEXT);
    expect(everything(err)).not.toContain(keyData.slice(0, 16));
    expect(everything(err)).not.toContain(TOKEN);
  });

  it('refuses a client key that does not belong to the certificate', async () => {
    const other = await makeTlsFixture();
    try {
      const err = failing(
        writeKubeconfig(
          'mismatch',
          ctx({ 'client-certificate-data': b64(tls.cert), 'client-key-data': b64(other.key) }),
        ),
      );
      expect(err.message).toMatch(/client-certificate and client-key of user "u" .* do not belong together/);
      expect(everything(err)).not.toContain(other.key.split('\n')[1] ?? '');
    } finally {
      other.remove();
    }
  });

  it('refuses a server that is not a URL, naming the fix and no password in it', () => {
    const file = writeKubeconfig('bad-url', {
      clusters: { c: { server: 'https://admin:kv-pass-31@exa mple:6443' } },
      users: { u: {} },
      contexts: { x: { cluster: 'c', user: 'u' } },
    });
    const err = failing(file);
    expect(err.message).toBe(
      `cluster "c" in kubeconfig ${file} (--kubeconfig): server is not a valid URL: ` +
        'fix clusters[].cluster.server (https://host:port)',
    );
    expect(everything(err)).not.toContain('kv-pass-31');
  });

  it('refuses a CA that holds no certificate', () => {
    const file = writeKubeconfig('bad-ca', {
      clusters: { c: { server: 'https://h:1', 'certificate-authority-data': keyData } },
      users: { u: {} },
      contexts: { x: { cluster: 'c', user: 'u' } },
    });
    const err = failing(file);
    expect(err.message).toMatch(
      /certificate-authority of cluster "c" in kubeconfig .*: not a PEM certificate/,
    );
    expect(everything(err)).not.toContain(KEY_TEXT);
  });

  it('names a missing kubeconfig and what to do', () => {
    const err = failing(join(dir, 'absent'));
    expect(err.message).toBe(
      `kubeconfig ${join(dir, 'absent')} (--kubeconfig): cannot read it (ENOENT: no such file or directory)`,
    );
  });
});

describe('loadRestConfig in a pod', () => {
  function fakeServiceAccount(name: string, withCa = true): string {
    const sa = join(dir, name);
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'sa-token');
    writeFileSync(join(sa, 'namespace'), 'kubevirt\n');
    if (withCa) writeFileSync(join(sa, 'ca.crt'), tls.cert);
    return sa;
  }

  it('uses the service account: CA, token file, namespace', () => {
    const sa = fakeServiceAccount('sa');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '6443' };
    expect(load({ env, serviceAccountDir: sa })).toEqual({
      server: 'https://10.96.0.1:6443',
      ca: tls.cert,
      tokenFile: join(sa, 'token'),
      namespace: 'kubevirt',
      qps: 50,
      burst: 100,
      userAgent: 'kubevirt-ts',
    });
  });

  it('brackets an IPv6 service host', () => {
    const sa = fakeServiceAccount('sa6');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    expect(load({ env, serviceAccountDir: sa }).server).toBe('https://[fd00::1]:443');
  });

  it('fails clearly when the CA is missing', () => {
    const sa = fakeServiceAccount('sa-noca', false);
    const err = configError({
      env: { KUBERNETES_SERVICE_HOST: 'h' },
      serviceAccountDir: sa,
      inCluster: true,
    });
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toContain(join(sa, 'ca.crt'));
  });
});
