import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KvError } from '../lib/kernel/errors/errors.ts';
import { makeTlsFixture, type TlsFixture } from '../testenv/pki.ts';
import { memoryLogger, nopLogger } from '../lib/kernel/log/log.ts';
import { rewriterRoleOptions, type RewriterFlags } from './rewriter.ts';

const virt = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt');

interface Exit {
  code: number | null;
  lines: Record<string, unknown>[];
  /** stderr as it came, line by line. */
  text: string[];
}

/** Starts `virt rewriter`, sends SIGTERM once `ready` matches a log line (never, when undefined). */
function runRewriter(args: string[], ready?: string): Promise<Exit> {
  const child = spawn(virt, ['rewriter', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const l of parts) {
      text.push(l);
      const rec = JSON.parse(l) as Record<string, unknown>;
      lines.push(rec);
      if (rec['msg'] === ready) child.kill('SIGTERM');
    }
  });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      resolve({ code, lines, text });
    }),
  );
}

const PORTS = ['--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];
const UPSTREAM = ['--upstream', 'http://127.0.0.1:1', '--metrics-listen', '127.0.0.1:0'];

describe('virt rewriter', () => {
  it('serves until SIGTERM, then stops gracefully with exit 0', async () => {
    const r = await runRewriter(['--upstream', 'http://127.0.0.1:1', ...PORTS], 'health server listening');
    expect(r.code).toBe(0);
    const msgs = r.lines.map((l) => l['msg']);
    expect(msgs).toEqual(expect.arrayContaining(['kube-api proxy listening', 'shutting down', 'stopped']));
    expect(r.lines.find((l) => l['msg'] === 'kube-api proxy listening')).toMatchObject({
      component: 'rewriter',
      upstream: 'http://127.0.0.1:1',
    });
  }, 60_000);

  it('exits 1 and says why on a bad listen address', async () => {
    const r = await runRewriter(['--upstream', 'http://127.0.0.1:1', '--listen', 'nowhere']);
    expect(r.code).toBe(1);
    expect(r.lines).toContainEqual(
      expect.objectContaining({
        msg: 'main failed',
        reason: 'KV_ERR_CONFIG: --listen "nowhere" must be host:port or :port (port 0-65535)',
      }),
    );
  }, 60_000);

  it('refuses a kube-api address off loopback in one line that says why and names the flag that allows it', async () => {
    const r = await runRewriter([...UPSTREAM, '--listen', '0.0.0.0:0']);
    expect(r.code).toBe(1);
    expect(r.text).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({
      level: 'error',
      msg: 'main failed',
      reason: expect.stringMatching(
        /^KV_ERR_CONFIG: --listen 0\.0\.0\.0:0: not a loopback address; .*tokens of its clients would cross the network in clear text.*--allow-remote-listen/,
      ),
    });
    expect(r.lines[0]).not.toHaveProperty('stack');
  }, 60_000);

  it('serves on every interface with --allow-remote-listen, and warns that it does', async () => {
    const r = await runRewriter(
      [...UPSTREAM, '--listen', '0.0.0.0:0', '--allow-remote-listen'],
      'health server listening',
    );
    expect(r.code).toBe(0);
    expect(r.lines.map((l) => l['msg'])).toEqual(
      expect.arrayContaining([
        'kube-api proxy accepts remote clients (--allow-remote-listen)',
        'kube-api proxy listening',
        'stopped',
      ]),
    );
  }, 60_000);
});

let tls: TlsFixture;
let dir: string;
beforeAll(async () => {
  tls = await makeTlsFixture();
  dir = mkdtempSync(join(tmpdir(), 'kv-rewriter-flags-'));
  writeFileSync(join(dir, 'not-a-key.pem'), 'kv-flag-secret-0a1b\n');
});
afterAll(() => {
  tls.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** The defaults commander gives, an explicit upstream (no kubeconfig is read), and the overrides. */
const flags = (over: Partial<RewriterFlags> = {}): RewriterFlags => ({
  listen: '127.0.0.1:23915',
  upstream: 'https://10.0.0.1:6443',
  webhookListen: ':24192',
  webhookClientAllowedNames: ['kube-apiserver-webhook-client'],
  metricsListen: '127.0.0.1:9090',
  maxBodyBytes: 1024,
  verbosity: 2,
  allowRemoteListen: false,
  ...over,
});

function refusal(f: RewriterFlags): KvError {
  try {
    rewriterRoleOptions(f, nopLogger);
  } catch (err) {
    if (err instanceof KvError) return err;
    throw err;
  }
  throw new Error('expected the flags to be refused');
}

describe('rewriter flags: --listen stays on loopback', () => {
  it.each<[string, { host: string | undefined; port: number }]>([
    ['127.0.0.1:23915', { host: '127.0.0.1', port: 23915 }],
    ['127.0.0.2:0', { host: '127.0.0.2', port: 0 }],
    ['[::1]:23915', { host: '::1', port: 23915 }],
    ['localhost:23915', { host: 'localhost', port: 23915 }],
  ])('accepts %s', (listen, want) => {
    expect(rewriterRoleOptions(flags({ listen }), nopLogger).listen).toEqual(want);
  });

  it.each([':23915', '0.0.0.0:23915', '[::]:23915', '10.1.2.3:23915', 'my-pod:23915'])(
    'refuses %s without --allow-remote-listen, saying why and what to do',
    (listen) => {
      const err = refusal(flags({ listen }));
      expect(err.code).toBe('KV_ERR_CONFIG');
      expect(err.message).toBe(
        `--listen ${listen}: not a loopback address; the kube-api proxy is plain HTTP, so the tokens of ` +
          'its clients would cross the network in clear text: it listens on 127.0.0.0/8, ::1 or localhost ' +
          'only: use --listen 127.0.0.1:<port>, or pass --allow-remote-listen to accept other hosts',
      );
    },
  );

  it.each([':23915', '0.0.0.0:0', '10.1.2.3:23915'])('accepts %s with --allow-remote-listen', (listen) => {
    expect(() => rewriterRoleOptions(flags({ listen, allowRemoteListen: true }), nopLogger)).not.toThrow();
  });

  it('leaves the webhook port on every interface (the API server calls it on the Pod address)', () => {
    const o = rewriterRoleOptions(
      flags({
        webhookUpstream: 'https://127.0.0.1:8443',
        webhookCert: tls.certFile,
        webhookKey: tls.keyFile,
      }),
      nopLogger,
    );
    expect(o.webhook?.listen).toEqual({ host: undefined, port: 24192 });
    expect(o.webhook?.upstreamClient).toBeUndefined();
  });

  it('reads the client certificate the webhook proxy shows its upstream', () => {
    const o = rewriterRoleOptions(
      flags({
        webhookUpstream: 'https://127.0.0.1:8443',
        webhookCert: tls.certFile,
        webhookKey: tls.keyFile,
        webhookUpstreamClientCert: tls.certFile,
        webhookUpstreamClientKey: tls.keyFile,
      }),
      nopLogger,
    );
    expect(o.webhook?.upstreamClient).toEqual({ cert: tls.cert, key: tls.key });
  });

  it('names the files the webhook proxy watches for rotation, the callers CA only when it has callers', () => {
    const webhook = {
      webhookUpstream: 'https://127.0.0.1:8443',
      webhookCert: tls.certFile,
      webhookKey: join(dir, 'key-copy.pem'),
      webhookUpstreamCa: tls.certFile,
      webhookUpstreamClientCert: tls.certFile,
      webhookUpstreamClientKey: tls.keyFile,
    };
    writeFileSync(webhook.webhookKey, tls.key);
    expect(rewriterRoleOptions(flags(webhook), nopLogger).webhook?.files).toEqual({
      cert: tls.certFile,
      key: webhook.webhookKey,
      callersCa: undefined,
      upstreamCa: tls.certFile,
      upstreamClient: { cert: tls.certFile, key: tls.keyFile },
    });
    const withCallers = flags({ ...webhook, webhookClientCaFile: tls.certFile });
    expect(rewriterRoleOptions(withCallers, nopLogger).webhook?.files?.callersCa).toBe(tls.certFile);
  });
});

describe('rewriter flags: the monitoring listener', () => {
  it('serves plain and open without --metrics-tls-cert-file and --metrics-tls-key-file', () => {
    expect(rewriterRoleOptions(flags(), nopLogger).metricsTls).toBeUndefined();
  });

  it('reads and keeps the names of the metrics certificate and key', () => {
    const o = rewriterRoleOptions(
      flags({ metricsTlsCertFile: tls.certFile, metricsTlsKeyFile: tls.keyFile }),
      nopLogger,
    );
    expect(o.metricsTls).toEqual({
      cert: tls.cert,
      key: tls.key,
      certFile: tls.certFile,
      keyFile: tls.keyFile,
    });
  });
});

describe('rewriter flags: who may call the webhook proxy', () => {
  const withTls = (over: Partial<RewriterFlags>): RewriterFlags =>
    flags({
      webhookUpstream: 'https://127.0.0.1:8443',
      webhookCert: tls.certFile,
      webhookKey: tls.keyFile,
      ...over,
    });

  it('takes the CA and the names list', () => {
    const o = rewriterRoleOptions(
      withTls({ webhookClientCaFile: tls.certFile, webhookClientAllowedNames: ['a', 'b'] }),
      nopLogger,
    );
    expect(o.webhook?.callers).toEqual({ ca: tls.cert, allowedNames: ['a', 'b'] });
  });

  it('serves anyone without --webhook-client-ca-file, and warns', () => {
    const { log, lines } = memoryLogger();
    expect(rewriterRoleOptions(withTls({}), log).webhook?.callers).toBeUndefined();
    expect(lines.map((l) => l['msg'])).toEqual([
      'the webhook proxy serves any caller: pass --webhook-client-ca-file with the CA of the API server webhook client certificate',
    ]);
  });

  it('refuses an empty names list', () => {
    const err = refusal(withTls({ webhookClientCaFile: tls.certFile, webhookClientAllowedNames: [] }));
    expect(err.message).toBe('--webhook-client-allowed-names is empty: name at least one caller');
  });

  it('refuses a CA file that holds no certificate, without its content', () => {
    const err = refusal(withTls({ webhookClientCaFile: join(dir, 'not-a-key.pem') }));
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toContain('--webhook-client-ca-file');
    expect(err.message).not.toContain('kv-flag-secret-0a1b');
  });
});

describe('rewriter flags: --listen-unix', () => {
  it.each<[string, Partial<RewriterFlags>, unknown]>([
    ['no socket by default', {}, undefined],
    ['0600 alone', { listenUnix: '/run/rw/kube-api.sock' }, { path: '/run/rw/kube-api.sock', mode: 0o600 }],
    [
      '0660 with a group',
      { listenUnix: '/run/rw/kube-api.sock', listenUnixGroup: 107 },
      { path: '/run/rw/kube-api.sock', mode: 0o660, gid: 107 },
    ],
  ])('%s', (_name, over, want) => {
    expect(rewriterRoleOptions(flags(over), nopLogger).listenUnix).toEqual(want);
  });

  it.each<[Partial<RewriterFlags>, string]>([
    [{ listenUnix: 'kube-api.sock' }, '--listen-unix kube-api.sock: give an absolute path'],
    [{ listenUnixGroup: 107 }, '--listen-unix-group needs --listen-unix: pass the socket path too'],
  ])('refuses %j', (over, message) => {
    const err = refusal(flags(over));
    expect([err.code, err.message]).toEqual(['KV_ERR_CONFIG', message]);
  });
});

describe('rewriter flags: listen addresses name their flag', () => {
  it.each<[string, Partial<RewriterFlags>, string]>([
    ['--listen', { listen: 'nowhere' }, '--listen "nowhere" must be host:port or :port (port 0-65535)'],
    [
      '--metrics-listen',
      { metricsListen: '9090' },
      '--metrics-listen "9090" must be host:port or :port (port 0-65535)',
    ],
    [
      '--webhook-listen',
      {
        webhookListen: '::1:443',
        webhookUpstream: 'https://127.0.0.1:8443',
        webhookCert: '<cert>',
        webhookKey: '<key>',
      },
      '--webhook-listen "::1:443": write IPv6 hosts in brackets, e.g. [::1]:8080',
    ],
  ])('%s', (_flag, over, message) => {
    const files = Object.fromEntries(
      Object.entries(over).map(([k, v]) => [
        k,
        v === '<cert>' ? tls.certFile : v === '<key>' ? tls.keyFile : v,
      ]),
    );
    const err = refusal(flags(files));
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toBe(message);
  });
});

describe('rewriter flags: TLS files', () => {
  it.each<[string, Partial<RewriterFlags>, RegExp]>([
    [
      'a webhook upstream without a serving key',
      { webhookUpstream: 'https://127.0.0.1:8443', webhookCert: '/c.pem' },
      /^--webhook-upstream needs --webhook-cert and --webhook-key: the webhook proxy serves TLS only$/,
    ],
    [
      'an unreadable --client-cert',
      { clientCert: '/nonexistent/c.pem', clientKey: '/nonexistent/k.pem' },
      /^--client-cert \/nonexistent\/c.pem: cannot read it \(ENOENT: no such file or directory\)$/,
    ],
    [
      'a --client-key that is not a key',
      { clientCert: '<cert>', clientKey: '<bad>' },
      /^--client-key .*not-a-key.pem: not a PEM private key \(ERR_OSSL_\w+\)$/,
    ],
    [
      'a --webhook-key that is not a key',
      { webhookUpstream: 'https://127.0.0.1:8443', webhookCert: '<cert>', webhookKey: '<bad>' },
      /^--webhook-key .*not-a-key.pem: not a PEM private key \(ERR_OSSL_\w+\)$/,
    ],
    [
      'a webhook upstream client certificate without its key',
      {
        webhookUpstream: 'https://127.0.0.1:8443',
        webhookCert: '<cert>',
        webhookKey: '<key>',
        webhookUpstreamClientCert: '<cert>',
      },
      /^--webhook-upstream-client-cert and --webhook-upstream-client-key go together: pass both$/,
    ],
    [
      'a --metrics-tls-key-file without its certificate',
      { metricsTlsKeyFile: '<key>' },
      /^--metrics-tls-cert-file and --metrics-tls-key-file go together: pass both \(TLS, \/metrics authorized\) or neither \(plain HTTP, \/metrics open\)$/,
    ],
    [
      'a --metrics-tls-key-file that is not a key',
      { metricsTlsCertFile: '<cert>', metricsTlsKeyFile: '<bad>' },
      /^--metrics-tls-key-file .*not-a-key.pem: not a PEM private key \(ERR_OSSL_\w+\)$/,
    ],
    [
      'a --webhook-upstream-client-key that is not a key',
      {
        webhookUpstream: 'https://127.0.0.1:8443',
        webhookCert: '<cert>',
        webhookKey: '<key>',
        webhookUpstreamClientCert: '<cert>',
        webhookUpstreamClientKey: '<bad>',
      },
      /^--webhook-upstream-client-key .*not-a-key.pem: not a PEM private key \(ERR_OSSL_\w+\)$/,
    ],
  ])('refuses %s with KV_ERR_CONFIG, quoting no file', (_name, over, message) => {
    const stand: Record<string, string> = {
      '<cert>': tls.certFile,
      '<key>': tls.keyFile,
      '<bad>': join(dir, 'not-a-key.pem'),
    };
    const files = Object.fromEntries(
      Object.entries(over).map(([k, v]) => [k, typeof v === 'string' ? (stand[v] ?? v) : v]),
    );
    const err = refusal(flags(files));
    expect(err.code).toBe('KV_ERR_CONFIG');
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain('kv-flag-secret-0a1b');
  });
});
