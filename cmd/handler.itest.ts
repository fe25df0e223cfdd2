/**
 * `virt handler` started from its flags against the real kube-apiserver, with its REST server on loopback:
 * without --client-common-name it requires KubeVirt's client name, so a certificate its client CA signed for
 * another name is refused before any HTTP, and the api's certificate with that name is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testCluster, type TestCluster } from '../testenv/cluster.ts';
import { call, vmiPath, type Dial } from '../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../lib/handler/rest/testing/pki.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';

const virt = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt');

let cluster: TestCluster;
let pki: RestPki;
let dir: string;
let handler: ChildProcess;
let exited: Promise<number | null>;
let output = '';

/** The port of the line with this message the handler logged, once it did. */
function loggedPort(msg: string): number | undefined {
  for (const line of output.split('\n')) {
    try {
      const j = JSON.parse(line) as { msg?: string; port?: number };
      if (j.msg === msg && typeof j.port === 'number') return j.port;
    } catch {
      // not a whole JSON line yet
    }
  }
  return undefined;
}

beforeAll(async () => {
  cluster = await testCluster('handler-cmd', { userAgent: 'kubevirt-ts/handler-itest' });
  pki = await makeRestPki();
  dir = await mkdtemp(join(tmpdir(), 'kv-handler-cmd-'));
  const pems = { 'ca.crt': pki.ca.cert, 'tls.crt': pki.server.cert, 'tls.key': pki.server.key };
  for (const [f, pem] of Object.entries(pems)) await writeFile(join(dir, f), pem, { mode: 0o600 });
  const kubeconfig = process.env['KUBECONFIG'] ?? '';
  handler = spawn(
    virt,
    [
      ...['handler', '--kubeconfig', kubeconfig, '--node-name', `${cluster.ns}-node`, '--port', '0'],
      ...['--root', join(dir, 'root'), '--device-plugins-dir', join(dir, 'device-plugins')],
      ...['--console-server-address', '127.0.0.1', '--console-server-port', '0'],
      ...['--client-ca-file', join(dir, 'ca.crt'), '--tls-cert-file', join(dir, 'tls.crt')],
      ...['--tls-key-file', join(dir, 'tls.key')],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  handler.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  handler.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  exited = new Promise((resolve) => handler.once('exit', resolve));
}, 60_000);

afterAll(async () => {
  if (handler.exitCode === null && handler.signalCode === null) handler.kill('SIGTERM');
  await exited;
  await rm(dir, { recursive: true, force: true });
  await cluster.close();
}, 60_000);

describe('virt handler from its flags', () => {
  it('refuses a client certificate of its CA for another name than KubeVirt’s, with no flag given', async () => {
    const port = await waitFor(
      () => loggedPort('console server listening'),
      () => `the console server listening; the handler wrote: ${output.slice(-2000)}`,
      { timeoutMs: 60_000 },
    );
    const dial = (client: RestPki['client']): Dial => ({ port, ca: pki.ca.cert, client });
    const guest = vmiPath(cluster.ns, 'vm1', 'guestosinfo');
    await expect(call(dial(pki.otherName), 'GET', guest)).rejects.toThrow();
    expect(output).toContain('"msg":"console client refused: common name is invalid"');
    expect(output).toContain('"expected":"kubevirt.io:system:client:virt-handler","cn":"someone-else"');
    const answered = await call(dial(pki.client), 'GET', guest);
    expect(answered).toMatchObject({ status: 404, text: `VMI ${cluster.ns}/vm1 does not exist` });
    expect(output).not.toContain('BEGIN');
  });
});
