import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { httpsCall } from '../lib/kernel/tls/testing/https.ts';
import { acceptsConnection } from '../lib/pr-helper/role.ts';
import { writeFakeHelper } from '../lib/pr-helper/testing/fake-helper.ts';
import { makeTlsFixture } from '../testenv/pki.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The binary loads through tsx: seconds when the machine is busy.
jest.setTimeout(60_000);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pr-cmd-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('virt pr-helper', () => {
  it('on SIGTERM stops its helper and exits 0, leaving no process', async () => {
    const fake = await writeFakeHelper(dir);
    const socket = join(dir, 'pr/pr-helper.sock');
    const virt = spawn(
      join(root, 'bin/virt'),
      ['pr-helper', '--socket', socket, '--helper-binary', fake.binary, '--health-port', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    virt.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => virt.once('exit', resolve));
    await waitFor(
      () => acceptsConnection(socket),
      () => `the helper's socket (stderr: ${stderr})`,
    );
    const [pid] = await fake.pids();
    expect(pid).toBeGreaterThan(0);
    expect(stderr).toContain(`"msg":"qemu-pr-helper started","pid":${pid ?? 0}`);
    virt.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(`/proc/${pid ?? 0}`)).toBe(false);
    expect(existsSync(`/proc/${virt.pid ?? 0}`)).toBe(false);
  });

  it('with the metrics TLS flags serves its health port over TLS, /metrics only with a token', async () => {
    const [fake, tls] = await Promise.all([writeFakeHelper(dir), makeTlsFixture()]);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const args = ['pr-helper', '--socket', join(dir, 'pr.sock'), '--helper-binary', fake.binary];
    args.push('--health-port', '0', '--kubeconfig', kubeconfig);
    args.push('--metrics-tls-cert-file', tls.certFile, '--metrics-tls-key-file', tls.keyFile);
    const virt = spawn(join(root, 'bin/virt'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    virt.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => virt.once('exit', resolve));
    const listening = await waitFor(
      () =>
        stderr
          .split('\n')
          .filter((l) => l.includes('"msg":"health server listening"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)[0],
      () => `the health server (stderr: ${stderr})`,
    );
    expect(listening).toMatchObject({ tls: true, metricsAuthorized: true });
    const url = (path: string): URL => new URL(`https://127.0.0.1:${String(listening['port'])}${path}`);
    expect((await httpsCall(url('/healthz'), { method: 'GET', ca: tls.cert })).status).toBe(200);
    expect((await httpsCall(url('/metrics'), { method: 'GET', ca: tls.cert })).status).toBe(401);
    virt.kill('SIGTERM');
    expect(await exited).toBe(0);
    tls.remove();
  });
});
