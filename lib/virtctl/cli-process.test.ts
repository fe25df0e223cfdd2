/**
 * The virtctl-ts binary as a person runs it (bin/virtctl-ts, a real process with pipes) against the fake API
 * server: its stdout, stderr and exit code, a console session typed into its stdin, and a port-forward ended
 * by SIGINT.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../kernel/testing/wait.ts';
import { ConsoleEndpoint } from './testing/console-server.ts';
import { EchoEndpoint } from './testing/echo-endpoint.ts';
import { FakeApi, makeApiPki, on } from './testing/fake-api.ts';

jest.setTimeout(60_000);

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'virtctl-ts');
const SUB = '/apis/subresources.kubevirt.io/v1/namespaces/default';

let api: FakeApi;
let dir: string;
let kc: string;

beforeAll(async () => {
  api = await FakeApi.start(await makeApiPki());
  dir = await mkdtemp(join(tmpdir(), 'virtctl-bin-'));
  kc = await api.kubeconfig(dir);
});

afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

interface Proc {
  readonly child: ChildProcessWithoutNullStreams;
  readonly out: () => string;
  readonly err: () => string;
  readonly exit: Promise<number | null>;
}

function virtctl(args: string[]): Proc {
  const child = spawn(BIN, args, { env: { ...process.env, KUBECONFIG: kc, HOME: dir } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, out: () => out, err: () => err, exit };
}

describe('bin/virtctl-ts', () => {
  it('starts a VM, refuses the built-in ssh client with 2 and bad usage with 3', async () => {
    api.routes = [on('PUT', `${SUB}/virtualmachines/vm1/start`, { status: 202 })];
    const [start, native, bad] = [
      virtctl(['start', 'vm1']),
      virtctl(['ssh', '--local-ssh=false', 'vmi/v']),
      virtctl(['start']),
    ];
    expect([await start.exit, start.out(), start.err()]).toEqual([0, 'VM vm1 was scheduled to start\n', '']);
    expect([await native.exit, native.err()]).toEqual([
      2,
      'The --local-ssh flag is deprecated and now defaults to true.\n' +
        'virtctl-ts ssh has no built-in SSH client: only the local ssh client of this system is supported; drop --local-ssh=false\n',
    ]);
    expect(await bad.exit).toBe(3);
    expect(bad.err()).toContain("error: missing required argument 'vm'");
  });

  it('console: typed bytes arrive, guest bytes print, a 1006 drop reconnects, Ctrl+] exits 0', async () => {
    api.wsRoutes = [];
    const endpoint = new ConsoleEndpoint(api, `${SUB}/virtualmachineinstances/v/console`);
    const p = virtctl(['console', 'v']);
    const first = await endpoint.session(0);
    first.ws.send('hello from the guest\r\n');
    await waitFor(() => p.out().includes('hello from the guest'), 'the guest line on stdout');
    p.child.stdin.write('uname\r');
    await endpoint.received(0, 'uname\r');
    first.ws.terminate();
    const second = await endpoint.session(1);
    second.ws.send('again\r\n');
    await waitFor(() => p.out().includes('again'), 'the second session on stdout');
    p.child.stdin.write('x\x1d');
    expect(await p.exit).toBe(0);
    await endpoint.received(1, 'x');
    expect(p.out()).toBe('hello from the guest\r\nagain\r\n');
    expect(p.err()).toBe(
      'Successfully connected to v console. Press Ctrl+] or Ctrl+5 to exit console.\n' +
        '\r\nThe console connection dropped (code 1006); reconnecting...\r\n' +
        'Successfully connected to v console. Press Ctrl+] or Ctrl+5 to exit console.\n',
    );
    expect([first.request.clientCn, first.request.protocol]).toEqual(['jane', 'plain.kubevirt.io']);
  });

  it('port-forward: bytes round-trip through the local port, SIGINT closes the tunnel with 1000 and exits 0', async () => {
    api.wsRoutes = [];
    const ep = new EchoEndpoint(api, `${SUB}/virtualmachineinstances/v/portforward/80`);
    const p = virtctl(['port-forward', 'vmi/v', '0:80']);
    const line = await waitFor(
      () => /^forwarding tcp 127\.0\.0\.1:(\d+) to 80\n$/.exec(p.err()) ?? undefined,
      'the line',
    );
    let got = '';
    const sock = connect(Number(line[1]), '127.0.0.1');
    sock.on('data', (d: Buffer) => (got += d.toString('utf8')));
    sock.on('error', () => undefined);
    sock.write('ping');
    await waitFor(() => got === 'ping', 'the echo');
    p.child.kill('SIGINT');
    expect(await p.exit).toBe(0);
    expect(await waitFor(() => ep.tunnels[0]?.closeCode, 'the tunnel to close')).toBe(1000);
    await waitFor(() => sock.closed, 'the local connection to close');
    expect(p.out()).toBe('');
  });
});
