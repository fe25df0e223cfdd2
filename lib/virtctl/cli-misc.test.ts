import { describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { realClock } from '../kernel/clock.ts';
import { bashCompletion, commandTree } from './completion.ts';
import { virtctlProgram } from './program.ts';
import { Session } from './session.ts';
import { useCliFixture } from './testing/cli-fixture.ts';
import { on } from './testing/fake-api.ts';
import { runCli } from './testing/run-cli.ts';

jest.setTimeout(30_000);

const f = useCliFixture();

describe('virtctl-ts version, help', () => {
  it('prints the client and the server version', async () => {
    f.api.routes.push(
      on('GET', '/apis/subresources.kubevirt.io/v1/version', {
        status: 200,
        body: { version: '9.9.9', gitCommit: 'abc' },
      }),
    );
    const r = await f.cli('version');
    expect(r.code).toBe(0);
    const [client, server] = r.stdout.split('\n');
    expect(client).toMatch(
      /^Client Version: version\.Info\{GitVersion:"\d+\.\d+\.\d+", GitCommit:"[0-9a-f]+|unknown"/,
    );
    expect(server).toBe(
      'Server Version: version.Info{GitVersion:"9.9.9", GitCommit:"abc", GitTreeState:"", BuildDate:"", GoVersion:"", Compiler:"", Platform:""}',
    );
  });

  it('prints the client line even when the server is unreachable', async () => {
    const dead = await f.api.kubeconfig(f.dir, { server: 'https://127.0.0.1:1' });
    const r = await runCli(['--kubeconfig', dead, 'version']);
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/^Client Version: /);
    expect(r.stderr).toMatch(
      /^failed to get server version: cannot reach the API server https:\/\/127\.0\.0\.1:1: /,
    );
    expect((await runCli(['version', '--client'])).code).toBe(0);
  });

  it('lists the exit codes in --help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit codes:\n    0  done\n');
  });
});

describe('virtctl-ts completion', () => {
  it('prints a bash script bash accepts', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.stdout).toContain('complete -F _virtctl_ts virtctl-ts');
    expect((await runCli(['completion', 'fish'])).code).toBe(3);
  });

  it('reads every command and flag of the virtctl-ts tree', () => {
    const io = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      env: {},
      signal: new AbortController().signal,
    };
    const tree = commandTree(virtctlProgram(new Session(io, realClock)));
    const names = tree.commands.map((c) => c.name);
    for (const c of [
      'start',
      'stop',
      'restart',
      'console',
      'vnc',
      'port-forward',
      'ssh',
      'scp',
      'addvolume',
      'removevolume',
      'freeze',
      'unfreeze',
      'pause',
      'unpause',
      'soft-reboot',
      'guestosinfo',
      'userlist',
      'fslist',
      'version',
      'completion',
    ]) {
      expect(names).toContain(c);
    }
    expect(tree.valueFlags).toEqual(['--kubeconfig', '--context', '-n', '--namespace']);
    const stop = tree.commands.find((c) => c.name === 'stop');
    expect(stop?.flags).toEqual(
      expect.arrayContaining(['--grace-period', '--force', '--dry-run', '--wait', '--timeout']),
    );
    expect(tree.commands.find((c) => c.name === 'pause')?.argChoices).toEqual(['vm', 'vmi']);
    expect(tree.commands.find((c) => c.name === 'port-forward')?.flags).toEqual(['--stdio', '--address']);
    const ssh = tree.commands.find((c) => c.name === 'ssh');
    expect(ssh?.valueFlags).toEqual(
      expect.arrayContaining(['-i', '--identity-file', '-l', '-p', '-t', '--known-hosts', '-c', '--command']),
    );
    expect(ssh?.flags).toContain('--local-ssh');
    expect(tree.commands.find((c) => c.name === 'scp')?.flags).toEqual(
      expect.arrayContaining(['-r', '--recursive', '--preserve', '-i', '-p']),
    );
    execFileSync('bash', ['-n'], { input: bashCompletion(tree) });
  });
});
