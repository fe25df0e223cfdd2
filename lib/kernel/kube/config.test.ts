import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvError } from '../errors/errors.ts';
import { loadRestConfig, type LoadRestConfigOptions, type RestConfig } from './config.ts';
import { makeTlsFixture, type TlsFixture } from './testing/tls-fixture.ts';

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

beforeAll(() => {
  tls = makeTlsFixture();
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
    expect(load({ kubeconfig: file })).toMatchObject({
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
      /cannot read certificate-authority of cluster "c" from \/nonexistent\/ca.pem/,
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
