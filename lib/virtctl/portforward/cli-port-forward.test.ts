/**
 * `virtctl-ts port-forward` against the fake API's echo endpoint: TCP and UDP round trips through the local
 * ports, --stdio, refusals (a line per connection, or the end of the command when no connection can succeed),
 * a busy port, and the interrupt that closes every listener and tunnel.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { newStatus } from '../../kernel/errors/errors.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { useCliFixture, vmPath, vmiPath } from '../testing/cli-fixture.ts';
import { EchoEndpoint } from '../testing/echo-endpoint.ts';
import { startCli, type CliRun } from '../testing/run-cli.ts';

jest.setTimeout(30_000);

const f = useCliFixture();

/** Every run started, so one a failed test leaves running is stopped. */
const runs: CliRun[] = [];

afterEach(async () => {
  const left = runs.splice(0);
  for (const r of left) r.abort();
  await Promise.all(left.map((r) => r.done));
});

function start(args: string[], kc = f.kc): CliRun {
  const run = startCli(['--kubeconfig', kc, ...args]);
  runs.push(run);
  return run;
}

/** Starts port-forward and waits for its n "forwarding …" lines; answers the local ports in order. */
async function forward(args: string[], n = 1): Promise<{ run: CliRun; ports: number[] }> {
  const run = start(['port-forward', ...args]);
  const lines = await waitFor(
    () => {
      const found = [...run.stderr().matchAll(/^forwarding (tcp|udp) 127\.0\.0\.1:(\d+) to \d+$/gm)];
      return found.length >= n ? found : undefined;
    },
    () => `${n} forwarding line(s) (stderr ${JSON.stringify(run.stderr())})`,
  );
  return { run, ports: lines.map((m) => Number(m[2])) };
}

interface TcpClient {
  readonly sock: Socket;
  readonly got: () => string;
}

function tcp(port: number): Promise<TcpClient> {
  return new Promise((resolve, reject) => {
    let got = '';
    const sock = connect(port, '127.0.0.1', () => {
      resolve({ sock, got: () => got });
    });
    sock.on('data', (d: Buffer) => (got += d.toString('utf8')));
    sock.on('error', reject);
  });
}

async function tcpEcho(c: TcpClient, text: string): Promise<void> {
  const before = c.got();
  c.sock.write(text);
  await waitFor(
    () => c.got() === before + text,
    () => `the echo of ${text} (got ${JSON.stringify(c.got())})`,
  );
}

interface UdpClient {
  readonly sock: UdpSocket;
  readonly got: string[];
}

async function udp(): Promise<UdpClient> {
  const sock = createSocket('udp4');
  const c: UdpClient = { sock, got: [] };
  sock.on('message', (m: Buffer) => c.got.push(m.toString('utf8')));
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return c;
}

/** The close code the tunnel's server saw, once it is there. */
function closeCode(ep: EchoEndpoint, n: number): Promise<number> {
  return waitFor(() => ep.tunnels[n]?.closeCode, `tunnel ${n} to close`);
}

function closed(c: TcpClient): Promise<boolean> {
  return waitFor(() => c.sock.closed || c.sock.readableEnded, 'the local connection to close');
}

describe('virtctl-ts port-forward', () => {
  it('forwards each TCP connection on its own tunnel, prints the line, and an interrupt exits 0', async () => {
    const path = vmiPath('default', 'v', 'portforward/80');
    const ep = new EchoEndpoint(f.api, path);
    const { run, ports } = await forward(['vmi/v', '0:80']);
    const [port = 0] = ports;
    const a = await tcp(port);
    await tcpEcho(a, 'hello through the tunnel');
    const b = await tcp(port);
    await tcpEcho(b, 'second');
    await tcpEcho(a, ' again');
    expect(ep.tunnels.map((t) => [t.request.path, t.request.protocol, t.request.clientCn])).toEqual([
      [path, 'plain.kubevirt.io', 'jane'],
      [path, 'plain.kubevirt.io', 'jane'],
    ]);
    a.sock.end();
    expect(await closeCode(ep, 0)).toBe(1000);
    run.abort();
    expect(await run.done).toEqual({
      code: 0,
      stdout: '',
      stderr: `forwarding tcp 127.0.0.1:${port} to 80\n`,
    });
    expect(await closeCode(ep, 1)).toBe(1000);
    expect(await closed(b)).toBe(true);
  });

  it('relays UDP datagrams one websocket message each, a tunnel per sender', async () => {
    const path = vmPath('ns', 'v', 'portforward/53/udp');
    const ep = new EchoEndpoint(f.api, path);
    const { run, ports } = await forward(['vm/v/ns', 'udp/0:53']);
    const [port = 0] = ports;
    const a = await udp();
    a.sock.send('one', port, '127.0.0.1');
    a.sock.send('two', port, '127.0.0.1');
    await waitFor(() => a.got.length === 2, 'two datagrams back');
    expect(a.got).toEqual(['one', 'two']);
    const b = await udp();
    b.sock.send('three', port, '127.0.0.1');
    await waitFor(() => b.got.length === 1, 'the datagram back to the second sender');
    expect(b.got).toEqual(['three']);
    expect(ep.tunnels.map((t) => t.messages.map((m) => m.toString('utf8')))).toEqual([
      ['one', 'two'],
      ['three'],
    ]);
    expect(ep.tunnels.map((t) => t.request.path)).toEqual([path, path]);
    run.abort();
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`forwarding udp 127.0.0.1:${port} to 53\n`);
    expect([await closeCode(ep, 0), await closeCode(ep, 1)]).toEqual([1000, 1000]);
    a.sock.close();
    b.sock.close();
  });

  it('forwards several ports; a legacy name.namespace target warns as virtctl does', async () => {
    const tcpEp = new EchoEndpoint(f.api, vmiPath('other', 'v', 'portforward/22'));
    const udpEp = new EchoEndpoint(f.api, vmiPath('other', 'v', 'portforward/69/udp'));
    const { run, ports } = await forward(['vmi/v.other', '0:22', 'UDP/0:69'], 2);
    const [tcpPort = 0, udpPort = 0] = ports;
    const c = await tcp(tcpPort);
    await tcpEcho(c, 'x');
    const u = await udp();
    u.sock.send('y', udpPort, '127.0.0.1');
    await waitFor(() => u.got.length === 1, 'the UDP echo');
    run.abort();
    expect(await run.done).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Warning: A dot in target without specifying a namespace activates legacy parsing of name and namespace.\n' +
        'This behavior will be removed in the next release.\n' +
        `forwarding tcp 127.0.0.1:${tcpPort} to 22\nforwarding udp 127.0.0.1:${udpPort} to 69\n`,
    });
    expect([tcpEp.tunnels.length, udpEp.tunnels.length]).toEqual([1, 1]);
    u.sock.close();
  });

  it('takes the namespace from -n, else from the kubeconfig context', async () => {
    const fromFlag = new EchoEndpoint(f.api, vmiPath('flagns', 'v', 'portforward/22'));
    const kc = await f.api.kubeconfig(f.dir, { namespace: 'ctxns' });
    const fromContext = new EchoEndpoint(f.api, vmiPath('ctxns', 'v', 'portforward/22'));
    for (const [args, ep] of [
      [['-n', 'flagns'], fromFlag],
      [[], fromContext],
    ] as const) {
      const run = start([...args, 'port-forward', '--stdio', 'vmi/v', '22'], kc);
      await ep.tunnel(0);
      run.stdin.end();
      expect((await run.done).code).toBe(0);
    }
  });

  it('--stdio copies stdin to the tunnel and the tunnel to stdout, and ends with stdin', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'v', 'portforward/22'));
    const run = start(['port-forward', '--stdio=true', 'vmi/v', '22']);
    const t = await ep.tunnel(0);
    run.stdin.write('SSH-2.0-OpenSSH_9.6\r\n');
    await waitFor(() => run.stdout() === 'SSH-2.0-OpenSSH_9.6\r\n', 'the echo on stdout');
    run.stdin.end('bye');
    expect(await run.done).toEqual({ code: 0, stdout: 'SSH-2.0-OpenSSH_9.6\r\nbye', stderr: '' });
    expect(await closeCode(ep, 0)).toBe(1000);
    expect(Buffer.concat(t.messages).toString('utf8')).toBe('SSH-2.0-OpenSSH_9.6\r\nbye');
  });

  it('--stdio ends with an interrupt, and fails on a tunnel that drops', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'v', 'portforward/22'));
    const run = start(['port-forward', '--stdio', 'vmi/v', '22']);
    await ep.tunnel(0);
    run.abort();
    expect((await run.done).code).toBe(0);
    expect(await closeCode(ep, 0)).toBe(1000);
    const dropped = start(['port-forward', '--stdio', 'vmi/v', '22']);
    (await ep.tunnel(1)).ws.terminate();
    expect(await dropped.done).toEqual({
      code: 1,
      stdout: '',
      stderr: 'the tunnel to vmi/v/default port 22 dropped (code 1006)\n',
    });
  });

  it('--stdio: a refused tunnel (502, the guest port does not answer) fails with the VMI, the port and why', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'v', 'portforward/22'));
    ep.refusals = [{ status: 502, body: newStatus(502, "can't dial tcp 10.0.2.2:22: connection refused") }];
    const r = await start(['port-forward', '--stdio=true', 'vmi/v', '22']).done;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: "can't access vmi/v/default port 22: can't dial tcp 10.0.2.2:22: connection refused\n",
    });
  });

  it('a refused connection is closed with a line naming the VMI and port; the next one goes through', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'v', 'portforward/8080'));
    ep.refusals = [{ status: 502, body: newStatus(502, 'nothing listens on 8080') }];
    const { run, ports } = await forward(['vmi/v', '0:8080']);
    const [port = 0] = ports;
    const refused = await tcp(port);
    expect(await closed(refused)).toBe(true);
    await waitFor(() => run.stderr().includes("can't access"), 'the refusal line');
    const ok = await tcp(port);
    await tcpEcho(ok, 'now it listens');
    run.abort();
    expect(await run.done).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `forwarding tcp 127.0.0.1:${port} to 8080\n` +
        "can't access vmi/v/default port 8080: nothing listens on 8080\n",
    });
  });

  it('a refusal no connection gets past (404: no such VMI) ends the command with the hint', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'gone', 'portforward/80'));
    ep.refusals = [
      { status: 404, body: newStatus(404, 'virtualmachineinstance.kubevirt.io "gone" not found') },
    ];
    const { run, ports } = await forward(['vmi/gone', '0:80']);
    const c = await tcp(ports[0] ?? 0);
    const r = await run.done;
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n').slice(1)).toEqual([
      'can\'t access vmi/gone/default port 80: virtualmachineinstance.kubevirt.io "gone" not found',
      'VirtualMachineInstance gone was not found in namespace default: check the name, or pass -n/--namespace <namespace>',
      '',
    ]);
    expect(await closed(c)).toBe(true);
  });

  it('fails at once when a local port is taken, naming it', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const addr = busy.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    const r = await start(['port-forward', 'vmi/v', `${port}:80`]).done;
    busy.close();
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `cannot listen on tcp 127.0.0.1:${port}: the port is in use; pick another local port\n`,
    });
  });

  it.each([
    [['vmi/v'], "error: missing required argument 'ports'"],
    [['v', '80'], "target must contain type and name separated by '/' (got 'v')"],
    [['pod/v', '80'], "unsupported resource type 'pod'"],
    [['vmi/v', 'sctp/80'], "unknown protocol 'sctp' in 'sctp/80': use tcp/ (the default) or udp/"],
    [['vmi/v', '99999'], "invalid local port '99999' in '99999'"],
    [['--stdio', 'vmi/v', '22', '23'], 'only one port supported when forwarding to stdout (got 2)'],
    [['--stdio=yes', 'vmi/v', '22'], 'invalid argument "yes" for "--stdio" flag'],
  ])('refuses %j with exit 3 before connecting', async (args, message) => {
    const r = await f.cli('port-forward', ...args);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(message);
    expect(f.sent()).toEqual([]);
  });
});
