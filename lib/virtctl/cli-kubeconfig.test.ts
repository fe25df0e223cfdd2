import { describe, expect, it, jest } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { newStatus } from '../kernel/errors/errors.ts';
import { withoutUserinfo } from './server-url.ts';
import { useCliFixture } from './testing/cli-fixture.ts';
import { on } from './testing/fake-api.ts';
import { runCli } from './testing/run-cli.ts';

jest.setTimeout(30_000);

const f = useCliFixture();
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const VNC = '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/v/vnc';

/** A kubeconfig for the fake API server with these cluster fields (and its client certificate). */
async function kubeconfigWith(name: string, cluster: Record<string, unknown>): Promise<string> {
  const file = join(f.dir, name);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server: f.api.url, ...cluster } }],
    users: [
      {
        name: 'jane',
        user: {
          'client-certificate-data': b64(f.api.pki.client.cert),
          'client-key-data': b64(f.api.pki.client.key),
        },
      },
    ],
    contexts: [{ name: 'main', context: { cluster: 'test', user: 'jane' } }],
    'current-context': 'main',
  };
  await writeFile(file, JSON.stringify(doc));
  return file;
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => {
        resolve(typeof a === 'object' && a !== null ? a.port : 0);
      });
    });
  });

describe('withoutUserinfo', () => {
  it.each<[string, string]>([
    ['https://api.example:6443', 'https://api.example:6443'],
    ['https://jane:s3cret@api.example:6443/prefix', 'https://api.example:6443/prefix'],
    ['https://tok3n@api.example', 'https://api.example'],
    ['wss://a:b@c@h:1/x?y=z@w', 'wss://h:1/x?y=z@w'],
    [
      'cannot reach https://u:p@h:1: refused; see http://x:y@z/',
      'cannot reach https://h:1: refused; see http://z/',
    ],
    ['mail jane@example.org, not a URL', 'mail jane@example.org, not a URL'],
  ])('%s', (text, want) => {
    expect(withoutUserinfo(text)).toBe(want);
  });
});

describe('virtctl-ts and the kubeconfig server URL', () => {
  it("never prints the server URL's user:password@", async () => {
    const port = await freePort();
    const kc = await f.api.kubeconfig(f.dir, { server: `https://jane:s3cret@127.0.0.1:${port}` });
    const r = await runCli(['--kubeconfig', kc, 'start', 'vm1']);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error starting VirtualMachine: cannot reach the API server https://127\\.0\\.0\\.1:${port}: `,
      ),
    );
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr).not.toContain('jane');
  });

  it("a websocket neither sends the URL's userinfo as basic auth nor prints it", async () => {
    const kc = await f.api.kubeconfig(f.dir, {
      server: f.api.url.replace('https://', 'https://jane:s3cret@'),
    });
    f.api.wsRoutes.push((req) =>
      req.path.startsWith(VNC) ? { refuse: { status: 400, body: newStatus(400, 'no VNC here') } } : undefined,
    );
    const r = await runCli(['--kubeconfig', kc, 'vnc', 'v', '--proxy-only']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: "can't access VMI v: no VNC here\n" });
    const upgrade = f.api.requests.find((x) => x.path.startsWith(VNC));
    expect(upgrade?.clientCn).toBe('jane');
    expect(upgrade?.authorization).toBeUndefined();
  });
});

describe('virtctl-ts and TLS settings of the kubeconfig', () => {
  it('warns on insecure-skip-tls-verify, and still runs', async () => {
    f.api.routes.push(on('GET', '/apis/subresources.kubevirt.io/v1/version', { status: 200, body: {} }));
    const kc = await kubeconfigWith('insecure', { 'insecure-skip-tls-verify': true });
    const r = await runCli(['--kubeconfig', kc, 'version']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Warning: cluster "test" in kubeconfig ${kc} (--kubeconfig) sets insecure-skip-tls-verify: ` +
        `the API server's certificate is not verified, so anyone on the way to ${f.api.url} can pose as it\n`,
    );
  });

  it('refuses a CA together with insecure-skip-tls-verify, as kubectl does (exit 9)', async () => {
    const kc = await kubeconfigWith('ca-and-insecure', {
      'insecure-skip-tls-verify': true,
      'certificate-authority-data': b64(f.api.pki.ca.cert),
    });
    const r = await runCli(['--kubeconfig', kc, 'version']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(
      'specifying a root certificates file with the insecure flag is not allowed: ' +
        'remove certificate-authority (or certificate-authority-data) or insecure-skip-tls-verify\n',
    );
    expect(f.api.requests).toEqual([]);
  });
});
