import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newStatus } from '../../kernel/errors/errors.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { ConsoleEndpoint } from '../testing/console-server.ts';
import { FakeApi, makeApiPki } from '../testing/fake-api.ts';
import { startCli } from '../testing/run-cli.ts';

jest.setTimeout(30_000);

const PATH = '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/v/vnc';

let api: FakeApi;
let dir: string;
let kc: string;

beforeAll(async () => {
  api = await FakeApi.start(await makeApiPki());
  dir = await mkdtemp(join(tmpdir(), 'virtctl-vnc-'));
  kc = await api.kubeconfig(dir);
});

afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function tcp(port: number): Promise<{ sock: Socket; got: () => string }> {
  return new Promise((resolve, reject) => {
    let got = '';
    const sock = connect(port, '127.0.0.1', () => {
      resolve({ sock, got: () => got });
    });
    sock.on('data', (d: Buffer) => (got += d.toString('utf8')));
    sock.on('error', reject);
  });
}

describe('virtctl-ts vnc', () => {
  it('prints {"port":N} and bridges each TCP client to its own websocket', async () => {
    api.wsRoutes = [];
    const endpoint = new ConsoleEndpoint(api, PATH);
    const run = startCli([
      '--kubeconfig',
      kc,
      'vnc',
      'v',
      '--proxy-only',
      '--port',
      '0',
      '--preserve-session',
    ]);
    await waitFor(() => run.stdout().endsWith('\n'), 'the port line');
    const { port } = JSON.parse(run.stdout()) as { port: number };
    expect(port).toBeGreaterThan(0);
    const a = await tcp(port);
    const sa = await endpoint.session(1);
    sa.ws.send('RFB 003.008\n');
    await waitFor(() => a.got() === 'RFB 003.008\n', 'the server greeting at the viewer');
    a.sock.write('client-a');
    await endpoint.received(1, 'client-a');
    const b = await tcp(port);
    await endpoint.session(2);
    b.sock.write('client-b');
    await endpoint.received(2, 'client-b');
    expect(endpoint.sessions.map((s) => s.request.path)).toEqual(
      Array(3).fill(`${PATH}?preserveSession=true`),
    );
    expect(endpoint.sessions.every((s) => s.request.protocol === 'plain.kubevirt.io')).toBe(true);
    sa.ws.close();
    await waitFor(() => a.sock.closed, 'the viewer socket to close with its websocket');
    run.abort();
    expect(await run.done).toEqual({ code: 0, stdout: `{"port":${port}}\n`, stderr: '' });
    b.sock.destroy();
  });

  it('says no viewer is launched without --proxy-only', async () => {
    api.wsRoutes = [];
    new ConsoleEndpoint(api, PATH);
    const run = startCli(['--kubeconfig', kc, 'vnc', 'v']);
    await waitFor(() => run.stdout().endsWith('\n'), 'the port line');
    run.abort();
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^virtctl-ts launches no VNC viewer: point one at 127\.0\.0\.1:\d+ \(the proxy runs as with --proxy-only\)\n$/,
    );
  });

  it('fails before listening when the VMI has no VNC', async () => {
    api.wsRoutes = [];
    const endpoint = new ConsoleEndpoint(api, PATH);
    endpoint.refusals = [{ status: 400, body: newStatus(400, 'No graphics devices are present.') }];
    const r = await startCli(['--kubeconfig', kc, 'vnc', 'v', '--proxy-only']).done;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: "can't access VMI v: No graphics devices are present.\n",
    });
  });
});
