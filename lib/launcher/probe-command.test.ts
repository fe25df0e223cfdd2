// `virt launcher probe` against a real Cmd server on a unix socket, with the probe handlers over a fake guest.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { nopLogger } from '../kernel/log/log.ts';
import { newCmdServer } from '../rpc/index.ts';
import { serve, tempRoot, type Serving, type TempRoot } from '../rpc/testing/servers.ts';
import { probeHandlers, type GuestCommands } from './cmd-handlers.ts';
import { runProbe, type ProbeFlags } from './probe-command.ts';

type Guest = Pick<GuestCommands, 'ping' | 'exec'>;

let root: TempRoot;
let serving: Serving | undefined;
let socket: string;

beforeEach(async () => {
  root = await tempRoot();
  socket = path.join(root.dir, 'launcher-sock');
});
afterEach(async () => {
  await serving?.stop();
  serving = undefined;
  await root.cleanup();
});

async function launcher(guest: Guest): Promise<void> {
  serving = await serve(newCmdServer(probeHandlers(guest, nopLogger)), socket);
}

const flags = (over: Partial<ProbeFlags>): ProbeFlags => ({
  socket,
  domainName: 'ns_vm',
  timeoutSeconds: 1,
  guestAgentPing: false,
  args: [],
  ...over,
});

const never = (): Promise<never> => new Promise<never>(() => undefined);
const unused = (): Promise<never> => Promise.reject(new Error('not used'));

describe('virt launcher probe', () => {
  it('passes a guest agent ping, sending the domain and timeout', async () => {
    const seen: unknown[] = [];
    await launcher({
      ping: (name, timeout) => {
        seen.push(name, timeout);
        return Promise.resolve();
      },
      exec: unused,
    });
    expect(await runProbe(flags({ guestAgentPing: true, timeoutSeconds: 3 }))).toEqual({ exitCode: 0 });
    expect(seen).toEqual(['ns_vm', 3]);
  });

  it('fails a ping the agent does not answer, in one line', async () => {
    await launcher({
      ping: () => Promise.reject(new Error('QEMU guest agent\nis not connected')),
      exec: unused,
    });
    const r = await runProbe(flags({ guestAgentPing: true }));
    expect(r.exitCode).toBe(1);
    expect(r.reason).toMatch(/^guest agent ping failed: .*QEMU guest agent is not connected$/);
  });

  it.each([
    ['passes with the command exit code 0', 0, 'up\n', { exitCode: 0, stdout: 'up\n' }],
    ['fails with the command exit code', 3, '', { exitCode: 3, reason: '/bin/check exited with code 3' }],
  ])('runs an exec: %s', async (_what, exitCode, stdOut, want) => {
    const seen: unknown[] = [];
    await launcher({
      ping: unused,
      exec: (req) => {
        seen.push(req);
        return Promise.resolve({ exitCode, stdOut });
      },
    });
    expect(await runProbe(flags({ command: '/bin/check', args: ['-q', '--x'], timeoutSeconds: 2 }))).toEqual(
      want,
    );
    expect(seen).toEqual([
      { domainName: 'ns_vm', command: '/bin/check', args: ['-q', '--x'], timeoutSeconds: 2 },
    ]);
  });

  it('fails an exec that could not run', async () => {
    await launcher({ ping: unused, exec: () => Promise.reject(new Error('no such file')) });
    const r = await runProbe(flags({ command: 'nope' }));
    expect(r.exitCode).toBe(1);
    expect(r.reason).toMatch(/^nope could not run in the guest: .*no such file$/);
  });

  it('fails without a command or a ping, and without a launcher', async () => {
    await launcher({ ping: unused, exec: unused });
    expect(await runProbe(flags({}))).toEqual({
      exitCode: 1,
      reason: 'neither --command nor --guestAgentPing given',
    });
    const r = await runProbe(flags({ guestAgentPing: true, socket: path.join(root.dir, 'none') }));
    expect(r.exitCode).toBe(1);
    expect(r.reason).toContain(`cannot reach the launcher at ${path.join(root.dir, 'none')}`);
  });

  it('gives up on a launcher that never answers, within the timeout and the short tier', async () => {
    await launcher({ ping: never, exec: never });
    const deadlines = { shortMs: 300 };
    for (const f of [flags({ guestAgentPing: true, deadlines }), flags({ command: 'sleep', deadlines })]) {
      const started = Date.now();
      const r = await runProbe(f);
      expect(r.exitCode).toBe(1);
      expect(Date.now() - started).toBeLessThan(2500);
    }
  });
});
