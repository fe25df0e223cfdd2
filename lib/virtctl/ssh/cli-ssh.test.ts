/**
 * `virtctl-ts ssh` and `scp` with a stand-in for the system's client: a shell script named ssh (and scp) on
 * PATH that records its arguments, exits as told and, when asked, runs the ProxyCommand it was given with a
 * few bytes on its stdin, so the whole path (ssh → virtctl-ts port-forward --stdio → the fake API's echo
 * tunnel) runs without a real ssh.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useCliFixture, vmiPath } from '../testing/cli-fixture.ts';
import { EchoEndpoint } from '../testing/echo-endpoint.ts';
import { startCli } from '../testing/run-cli.ts';

jest.setTimeout(60_000);

const f = useCliFixture();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(ROOT, 'bin', 'virtctl-ts');
const SELF = ['/opt/kv/node', '/opt/kv/dist/virtctl-ts.mjs'];

const FAKE_CLIENT = `#!/bin/sh
# A stand-in for ssh/scp: records its arguments, runs the ProxyCommand when asked.
for a in "$@"; do printf '%s\\n' "$a"; done > "$FAKE_ARGV"
if [ -n "$FAKE_PROXY_INPUT" ]; then
  for a in "$@"; do case "$a" in ProxyCommand=*) proxy="\${a#ProxyCommand=}" ;; esac; done
  printf '%s' "$FAKE_PROXY_INPUT" | sh -c "$proxy"
fi
echo "fake $(basename "$0") ran"
exit "\${FAKE_EXIT:-0}"
`;

let bin = '';
let argvFile = '';

beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'virtctl-fake-ssh-'));
  argvFile = join(bin, 'argv');
  await writeFile(join(bin, 'ssh'), FAKE_CLIENT);
  await chmod(join(bin, 'ssh'), 0o755);
  await symlink(join(bin, 'ssh'), join(bin, 'scp'));
});

afterAll(async () => {
  await rm(bin, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: `${bin}:${process.env['PATH'] ?? ''}`,
  FAKE_ARGV: argvFile,
  ...extra,
});

/** The arguments the stand-in got, the fixture's kubeconfig path written <kc>. */
async function recorded(): Promise<string[]> {
  const lines = (await readFile(argvFile, 'utf8')).split('\n').slice(0, -1);
  return lines.map((a) => a.replaceAll(f.kc, '<kc>'));
}

const proxy = (target: string, port: number): string =>
  `ProxyCommand=${SELF.join(' ')} --kubeconfig <kc> port-forward --stdio=true ${target} ${port}`;

describe('virtctl-ts ssh', () => {
  it('runs the local ssh with the ProxyCommand, the flags in KubeVirt order, and exits with its code', async () => {
    const r = await startCli(
      [
        '--kubeconfig',
        f.kc,
        'ssh',
        '-i',
        '/keys/id',
        '--known-hosts',
        '/keys/kh',
        '-p',
        '2222',
        '-t',
        '-o StrictHostKeyChecking=no',
        '--local-ssh-opts=-v',
        'jdoe@vmi/testvmi/ns',
        '-c',
        'uname -a',
      ],
      env({ FAKE_EXIT: '7' }),
      { self: SELF },
    ).done;
    expect(r).toEqual({ code: 7, stdout: 'fake ssh ran\n', stderr: '' });
    expect(await recorded()).toEqual([
      '-o',
      proxy('vmi/testvmi/ns', 2222),
      '-o StrictHostKeyChecking=no',
      '-v',
      '-i',
      '/keys/id',
      '-o',
      'UserKnownHostsFile=/keys/kh',
      'jdoe@vmi.testvmi.ns',
      'uname -a',
    ]);
    expect(f.sent()).toEqual([]);
  });

  it.each([
    [['vm/v'], { USER: 'alice' }, ['-o', proxy('vm/v/default', 22), 'alice@vm.v.default']],
    [['-l', 'bob', 'vm/v'], { USER: 'alice' }, ['-o', proxy('vm/v/default', 22), 'bob@vm.v.default']],
    [['-l', 'bob', 'carol@vm/v'], { USER: 'alice' }, ['-o', proxy('vm/v/default', 22), 'carol@vm.v.default']],
    [['-n', 'other', 'vmi/v'], { LOGNAME: 'dave' }, ['-o', proxy('vmi/v/other', 22), 'dave@vmi.v.other']],
    [['vmi/v'], {}, ['-o', proxy('vmi/v/default', 22), 'vmi.v.default']],
  ])('ssh %j with env %j', async (args, vars, argv) => {
    const r = await startCli(['--kubeconfig', f.kc, 'ssh', ...args], env(vars), { self: SELF }).done;
    expect(r.code).toBe(0);
    expect(await recorded()).toEqual(argv);
  });

  it('says --local-ssh is deprecated, and refuses --local-ssh=false with exit 2', async () => {
    const on = await startCli(['--kubeconfig', f.kc, 'ssh', '--local-ssh=true', 'vmi/v'], env(), {
      self: SELF,
    }).done;
    expect(on).toEqual({
      code: 0,
      stdout: 'fake ssh ran\n',
      stderr: 'The --local-ssh flag is deprecated and now defaults to true.\n',
    });
    const off = await startCli(['ssh', '--local-ssh=false', 'vmi/v'], env()).done;
    expect(off).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'The --local-ssh flag is deprecated and now defaults to true.\n' +
        'virtctl-ts ssh has no built-in SSH client: only the local ssh client of this system is supported; drop --local-ssh=false\n',
    });
  });

  it('names the missing client when there is no ssh on PATH', async () => {
    const r = await startCli(['--kubeconfig', f.kc, 'ssh', 'vmi/v'], { PATH: '/nonexistent' }).done;
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "the local ssh client was not found on PATH: install OpenSSH's client (virtctl-ts runs the system ssh)\n",
    });
  });

  it.each([
    [['@vmi/v'], "expected username before '@' in '@vmi/v'"],
    [['vmi'], "target must contain type and name separated by '/' (got 'vmi')"],
    [['vmi/v', 'ls'], 'error: too many arguments'],
    [['-p', '0', 'vmi/v'], "option '-p, --port <port>' argument '0' is invalid. expected a port, 1 to 65535"],
  ])('refuses %j with exit 3', async (args, message) => {
    const r = await startCli(['--kubeconfig', f.kc, 'ssh', ...args], env()).done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(message);
  });

  it('from bin/virtctl-ts: ssh runs this same CLI as its ProxyCommand, through to the tunnel', async () => {
    const ep = new EchoEndpoint(f.api, vmiPath('default', 'v', 'portforward/2222'));
    const child = spawn(BIN, ['--kubeconfig', f.kc, 'ssh', '-p', '2222', 'jdoe@vmi/v'], {
      env: { ...process.env, ...env({ FAKE_PROXY_INPUT: 'SSH-2.0-ping\r\n' }), HOME: bin },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out, err }).toEqual({ code: 0, out: 'SSH-2.0-ping\r\nfake ssh ran\n', err: '' });
    const [o, proxyOption, host] = await recorded();
    expect([o, host]).toEqual(['-o', 'jdoe@vmi.v.default']);
    expect(proxyOption).toMatch(
      /^ProxyCommand=\S+\/node --import \S+\/node_modules\/tsx\/dist\/loader\.mjs \S+\/cmd\/virtctl\.ts --kubeconfig <kc> port-forward --stdio=true vmi\/v\/default 2222$/,
    );
    expect(ep.tunnels.map((t) => [t.request.clientCn, Buffer.concat(t.messages).toString('utf8')])).toEqual([
      ['jane', 'SSH-2.0-ping\r\n'],
    ]);
  });
});

describe('virtctl-ts scp', () => {
  it.each([
    [
      ['--recursive', '--preserve', '-i', '/k/id', '/l/dir', 'jdoe@vm/v/ns:/r/dir'],
      ['-o', proxy('vm/v/ns', 22), '-i', '/k/id', '-r', '-p', '/l/dir', 'jdoe@vm.v.ns:/r/dir'],
    ],
    [
      ['-p', '2200', 'vmi/v:/etc/hostname', '/tmp/h'],
      ['-o', proxy('vmi/v/default', 2200), 'vmi.v.default:/etc/hostname', '/tmp/h'],
    ],
  ])('scp %j', async (args, argv) => {
    const r = await startCli(['--kubeconfig', f.kc, 'scp', ...args], env(), { self: SELF }).done;
    expect(r).toEqual({ code: 0, stdout: 'fake scp ran\n', stderr: '' });
    expect(await recorded()).toEqual(argv);
  });

  it.each([
    [['vmi/a:x', 'vmi/b:y'], 'copying from a remote location to another remote location is not supported'],
    [['a', 'b'], 'none of the two provided locations seems to be a remote location'],
    [['--local-ssh=false', 'a', 'vmi/v:b'], 'virtctl-ts scp has no built-in SSH client'],
  ])('refuses %j', async (args, message) => {
    const r = await startCli(['scp', ...args], env()).done;
    expect(r.code).toBe(args[0] === '--local-ssh=false' ? 2 : 3);
    expect(r.stderr).toContain(message);
  });
});
