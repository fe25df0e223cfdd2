import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:https';
import { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { memoryLogger } from '../lib/kernel/log/log.ts';
import { startHealthServer } from '../lib/kernel/metrics/server.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { makeTlsFixture } from '../testenv/pki.ts';
import { ipAddress, metricsTlsOnceIssued, namesList, namesOption } from './flags.ts';

describe('namesList', () => {
  it.each<[string, string[]]>([
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    [' a , b', ['a', 'b']],
    ['a,,b,', ['a', 'b']],
    ['', []],
    [' , ', []],
    ['system:serviceaccount:ns:x,y', ['system:serviceaccount:ns:x', 'y']],
  ])('%j → %j', (value, names) => {
    expect(namesList(value)).toEqual(names);
  });
});

describe('namesOption', () => {
  const parse = (args: string[]): unknown => {
    const cmd = new Command('t')
      .exitOverride()
      .addOption(namesOption('--names <names>', 'the names', ['x', 'y']));
    cmd.parse(args, { from: 'user' });
    return cmd.opts()['names'];
  };

  it('gives its default as a list, and the list the flag names', () => {
    expect(parse([])).toEqual(['x', 'y']);
    expect(parse(['--names', ' a, b '])).toEqual(['a', 'b']);
    expect(parse(['--names', ' , '])).toEqual([]);
  });

  it('shows the default as one would pass it', () => {
    const cmd = new Command('t').addOption(namesOption('--names <names>', 'the names', ['x', 'y']));
    expect(cmd.helpInformation()).toContain('the names (default: "x,y")');
  });
});

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('ipAddress', () => {
  it.each(['10.0.0.1', '::1', '0.0.0.0'])('takes %s', (ip) => {
    expect(ipAddress('--health-host', ip)).toBe(ip);
  });

  it.each(['node-1', '$(NODE_IP)', ''])('refuses %j naming the flag', (value) => {
    expect(thrown(() => ipAddress('--health-host', value))).toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `--health-host ${value}: not an IP address`,
    });
  });
});

describe('metricsTlsOnceIssued', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kv-metrics-once-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const flags = (): { metricsTlsCertFile: string; metricsTlsKeyFile: string } => ({
    metricsTlsCertFile: join(dir, 'tls.crt'),
    metricsTlsKeyFile: join(dir, 'tls.key'),
  });

  /** A kubelet HTTPS probe of /healthz (no certificate check): its status and the certificate served. */
  const probe = (port: number): Promise<{ status: number; fingerprint: string }> =>
    new Promise((resolve, reject) => {
      const req = get(
        { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false },
        (res) => {
          const socket = res.socket;
          const fingerprint = socket instanceof TLSSocket ? socket.getPeerCertificate().fingerprint256 : '';
          res.resume();
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, fingerprint });
          });
        },
      );
      req.on('error', reject);
    });

  it('without the flags is plain HTTP, and with one of them refused', () => {
    const { log } = memoryLogger();
    expect(metricsTlsOnceIssued({}, log)).toBeUndefined();
    expect(
      thrown(() => metricsTlsOnceIssued({ metricsTlsCertFile: flags().metricsTlsCertFile }, log)),
    ).toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: expect.stringContaining('--metrics-tls-cert-file and --metrics-tls-key-file go together'),
    });
  });

  it('serves the files when they are there', async () => {
    const tls = await makeTlsFixture();
    try {
      const files = { metricsTlsCertFile: tls.certFile, metricsTlsKeyFile: tls.keyFile };
      expect(metricsTlsOnceIssued(files, memoryLogger().log)).toEqual({
        cert: tls.cert,
        key: tls.key,
        certFile: tls.certFile,
        keyFile: tls.keyFile,
      });
    } finally {
      tls.remove();
    }
  });

  it('serves a temporary pair until the files appear, the probes answered throughout', async () => {
    const { log, lines } = memoryLogger();
    const temporary = metricsTlsOnceIssued(flags(), log);
    if (temporary === undefined) throw new Error('no TLS');
    expect(temporary).toMatchObject({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warning', certFile: join(dir, 'tls.crt') }),
    );
    const server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      log,
      tls: temporary,
      tlsReloadIntervalMs: 50,
    });
    try {
      const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
      expect(await probe(server.port)).toEqual({ status: 200, fingerprint: fingerprint(temporary.cert) });
      const issued = await makeTlsFixture();
      await writeFile(join(dir, 'tls.key'), issued.key);
      await writeFile(join(dir, 'tls.crt'), issued.cert);
      issued.remove();
      await waitFor(
        async () => (await probe(server.port)).fingerprint === fingerprint(issued.cert),
        'the issued certificate served',
      );
      expect((await probe(server.port)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
