import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvError } from '../errors/errors.ts';
import { loadRestConfig, type ConfigWarning } from './config.ts';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';

let tls: TlsFixture;
let dir: string;
const TOKEN = 'sekret-token-value';

beforeAll(async () => {
  tls = await makeTlsFixture();
  dir = mkdtempSync(join(tmpdir(), 'kv-kube-config-warn-'));
});
afterAll(() => {
  tls.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** A kubeconfig with one cluster "c", one user "u" and one context; JSON is valid YAML. */
function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

function warningsOf(file: string): ConfigWarning[] {
  const got: ConfigWarning[] = [];
  loadRestConfig({ env: {}, kubeconfig: file, onWarning: (w) => got.push(w) });
  return got;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('loadRestConfig: a CA with insecure-skip-tls-verify', () => {
  it.each<[string, () => Record<string, unknown>]>([
    ['certificate-authority-data', () => ({ 'certificate-authority-data': b64(tls.cert) })],
    ['certificate-authority', () => ({ 'certificate-authority': tls.certFile })],
  ])('refused as client-go refuses it (%s)', (_n, ca) => {
    const file = kubeconfig(
      'ca-and-insecure',
      { server: 'https://127.0.0.1:6443', 'insecure-skip-tls-verify': true, ...ca() },
      {},
    );
    let err: unknown;
    try {
      loadRestConfig({ env: {}, kubeconfig: file, onWarning: () => undefined });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_CONFIG');
    expect((err as KvError).message).toBe(
      `cluster "c" in kubeconfig ${file} (--kubeconfig): specifying a root certificates file with the insecure flag is not allowed: ` +
        'remove certificate-authority (or certificate-authority-data) or insecure-skip-tls-verify',
    );
  });
});

describe('loadRestConfig: warnings', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, ConfigWarning['code'][]]>([
    ['https with a CA and a token: none', { server: 'https://h:1' }, { token: TOKEN }, []],
    [
      'insecure-skip-tls-verify',
      { server: 'https://h:1', 'insecure-skip-tls-verify': true },
      { token: TOKEN },
      ['insecure-skip-tls-verify'],
    ],
    [
      'a token over plain http',
      { server: 'http://h:8080', 'insecure-skip-tls-verify': true },
      { token: TOKEN },
      ['insecure-skip-tls-verify', 'token-over-http'],
    ],
    [
      'plain http without a token: the insecure flag only',
      { server: 'http://h:8080', 'insecure-skip-tls-verify': true },
      {},
      ['insecure-skip-tls-verify'],
    ],
  ])('%s', (name, cluster, user, codes) => {
    const got = warningsOf(kubeconfig(name.replace(/\W/g, '-'), cluster, user));
    expect(got.map((w) => w.code)).toEqual(codes);
    for (const w of got) expect(JSON.stringify(w)).not.toContain(TOKEN);
  });

  it('a token file over plain http; the warning names the user, the server and the file, never the token', () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const file = kubeconfig(
      'token-file-http',
      { server: 'http://user:pw@h:8080/prefix', 'insecure-skip-tls-verify': true },
      { 'token-file': tokenFile },
    );
    const w = warningsOf(file).find((x) => x.code === 'token-over-http');
    expect(w).toEqual({
      code: 'token-over-http',
      msg: 'kubeconfig sends a bearer token over plain http',
      fields: { source: `kubeconfig ${file} (--kubeconfig)`, user: 'u', server: 'http://h:8080' },
      text: `user "u" in kubeconfig ${file} (--kubeconfig): its token is sent to http://h:8080 over plain http://, readable by anyone on the way`,
    });
  });

  it('without onWarning, each warning is one JSON log line on stderr', () => {
    const lines: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      loadRestConfig({
        env: {},
        kubeconfig: kubeconfig(
          'default-sink',
          { server: 'http://h:8080', 'insecure-skip-tls-verify': true },
          {},
        ),
      });
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'warning',
      component: 'kube-config',
      msg: "kubeconfig turns off verification of the API server's certificate",
      code: 'insecure-skip-tls-verify',
      cluster: 'c',
      server: 'http://h:8080',
    });
  });
});
