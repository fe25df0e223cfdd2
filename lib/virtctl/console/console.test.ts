import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newStatus } from '../../kernel/errors/errors.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { ConsoleEndpoint } from '../testing/console-server.ts';
import { FakeApi, makeApiPki } from '../testing/fake-api.ts';
import { startCli } from '../testing/run-cli.ts';

jest.setTimeout(30_000);

const PATH = '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/v/console';
const CONNECTED = 'Successfully connected to v console. Press Ctrl+] or Ctrl+5 to exit console.\n';

let api: FakeApi;
let dir: string;
let kc: string;
let endpoint: ConsoleEndpoint;

beforeAll(async () => {
  api = await FakeApi.start(await makeApiPki());
  dir = await mkdtemp(join(tmpdir(), 'virtctl-console-'));
  kc = await api.kubeconfig(dir);
});

afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  api.wsRoutes = [];
  api.requests.splice(0);
  endpoint = new ConsoleEndpoint(api, PATH);
});

const consoleCli = (...args: string[]): ReturnType<typeof startCli> =>
  startCli(['--kubeconfig', kc, 'console', 'v', ...args]);

describe('virtctl-ts console', () => {
  it('carries typed bytes and the guest output, over plain.kubevirt.io with the client certificate; Ctrl+] ends it', async () => {
    const run = consoleCli();
    const s = await endpoint.session(0);
    s.ws.send(Buffer.from('login: '));
    await waitFor(() => run.stdout() === 'login: ', 'the guest output on stdout');
    run.stdin.write('root\r');
    await endpoint.received(0, 'root\r');
    run.stdin.write(Buffer.from([0x6c, 0x1d, 0x6d]));
    expect(await run.done).toEqual({ code: 0, stdout: 'login: ', stderr: CONNECTED });
    await endpoint.received(0, 'root\rl');
    expect(s.received).toBe('root\rl');
    expect(s.request).toMatchObject({
      method: 'GET',
      path: PATH,
      protocol: 'plain.kubevirt.io',
      clientCn: 'jane',
    });
  });

  it('reconnects after an abnormal close (1006) and keeps going', async () => {
    const run = consoleCli();
    const first = await endpoint.session(0);
    run.stdin.write('a');
    await endpoint.received(0, 'a');
    first.ws.terminate();
    const second = await endpoint.session(1);
    second.ws.send('back');
    await waitFor(() => run.stdout() === 'back', 'output of the second session');
    run.stdin.write('b');
    await endpoint.received(1, 'b');
    run.stdin.write('\x1d');
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${CONNECTED}\r\nThe console connection dropped (code 1006); reconnecting...\r\n${CONNECTED}`,
    );
    expect(first.received + second.received).toBe('ab');
  });

  it('waits while the VMI is not running (400), then connects', async () => {
    endpoint.refusals = [{ status: 400, body: newStatus(400, 'VMI is not running') }];
    const run = consoleCli();
    await endpoint.session(0);
    run.stdin.end();
    expect((await run.done).code).toBe(0);
    expect(api.requests.map((r) => r.path)).toEqual([PATH, PATH]);
  });

  it('ends when the server closes the session normally', async () => {
    const run = consoleCli();
    (await endpoint.session(0)).ws.close(1000);
    expect(await run.done).toEqual({ code: 0, stdout: '', stderr: CONNECTED });
  });

  it('fails at once on a missing VMI, naming the namespace', async () => {
    endpoint.refusals = [
      { status: 404, body: newStatus(404, 'virtualmachineinstances.kubevirt.io "v" not found') },
    ];
    const r = await consoleCli().done;
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      'virtualmachineinstances.kubevirt.io "v" not found\nVirtualMachineInstance v was not found in namespace default: check the name, or pass -n/--namespace <namespace>\n',
    );
  });

  it('does not reconnect after a refusal: a forbidden reconnect fails', async () => {
    const run = consoleCli();
    const first = await endpoint.session(0);
    endpoint.refusals = [{ status: 403, body: newStatus(403, 'forbidden') }];
    first.ws.terminate();
    const r = await run.done;
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('You were disconnected from the console.');
    expect(r.stderr).toContain('you may not get virtualmachineinstances/console in namespace default');
  });
});
