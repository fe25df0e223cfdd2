import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { acceptsConnection, runPrHelperRole, type PrHelperRoleOptions } from './role.ts';
import { writeFakeHelper } from './testing/fake-helper.ts';

jest.setTimeout(30_000);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pr-role-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => existsSync(`/proc/${pid}`);

/** SIGKILL to one PID (never 0: that would signal our whole process group). */
function kill9(pid: number | undefined): void {
  if (pid === undefined || pid <= 0) throw new Error(`no helper pid (${String(pid)})`);
  process.kill(pid, 'SIGKILL');
}

interface Running {
  socket: string;
  /** The PIDs of the helpers started, from the role's log lines. */
  started: () => number[];
  port: () => Promise<number>;
  stop: () => Promise<void>;
  done: Promise<void>;
}

function start(o: Partial<PrHelperRoleOptions> & { binary: string }): Running {
  const { log, lines } = memoryLogger('pr-helper');
  const socket = join(dir, 'daemons/pr/pr-helper.sock');
  const ac = new AbortController();
  const done = runPrHelperRole(
    {
      socket,
      helperLog: join(dir, 'helper.log'),
      healthPort: 0,
      healthHost: '127.0.0.1',
      backoff: { baseMs: 200, maxMs: 800, resetAfterMs: 60_000 },
      graceMs: 2000,
      probeIntervalMs: 50,
      log,
      ...o,
    },
    ac.signal,
  );
  return {
    socket,
    started: () => lines.filter((l) => l['msg'] === 'qemu-pr-helper started').map((l) => l['pid'] as number),
    port: () =>
      waitFor(
        () => lines.find((l) => l['msg'] === 'health server listening')?.['port'] as number | undefined,
        'the health server',
      ),
    stop: async () => {
      ac.abort();
      await done;
    },
    done,
  };
}

const get = async (port: number, path: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
};

const restarts = async (port: number): Promise<number> =>
  Number(/^kubevirt_pr_helper_restarts_total (\d+)$/m.exec((await get(port, '/metrics')).body)?.[1]);

describe('pr-helper role', () => {
  it('is ready only while the socket accepts a connection', async () => {
    const fake = await writeFakeHelper(dir, { listenAfterMs: 1500 });
    const role = start({ binary: fake.binary });
    const port = await role.port();
    await waitFor(async () => (await fake.pids()).length === 1, 'the helper to start');
    expect(await get(port, '/readyz?verbose')).toEqual({
      status: 503,
      body: expect.stringContaining(`[-]pr-helper-socket failed: ${role.socket} does not accept connections`),
    });
    await waitFor(async () => (await get(port, '/readyz')).status === 200, 'ready once the socket listens');
    expect(await acceptsConnection(role.socket)).toBe(true);
    await role.stop();
  });

  it('starts a killed helper again within its backoff, counting each restart', async () => {
    const fake = await writeFakeHelper(dir);
    const role = start({ binary: fake.binary });
    const port = await role.port();
    await waitFor(async () => (await get(port, '/readyz')).status === 200, 'ready');
    expect(await restarts(port)).toBe(0);
    for (const n of [1, 2]) {
      kill9((await fake.pids()).at(-1));
      const t0 = Date.now();
      await waitFor(async () => (await fake.pids()).length === n + 1, `restart ${n}`, { timeoutMs: 5000 });
      // 200 ms, then 400 ms (plus the time a node process takes to start).
      expect(Date.now() - t0).toBeLessThan(3000);
      await waitFor(() => acceptsConnection(role.socket), 'the socket to accept again');
      expect(await restarts(port)).toBe(n);
    }
    const log = await readFile(join(dir, 'helper.log'), 'utf8');
    expect(log).toContain(`listening on ${role.socket}`);
    await role.stop();
  });

  it('stops the helper when it stops and leaves no process', async () => {
    const fake = await writeFakeHelper(dir);
    const role = start({ binary: fake.binary });
    await waitFor(() => acceptsConnection(role.socket), 'the socket');
    const pids = await fake.pids();
    await role.stop();
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('refuses a symlinked socket directory before starting anything', async () => {
    const fake = await writeFakeHelper(dir);
    await mkdir(join(dir, 'elsewhere'));
    await mkdir(join(dir, 'daemons'));
    await symlink(join(dir, 'elsewhere'), join(dir, 'daemons/pr'));
    const role = start({ binary: fake.binary });
    await expect(role.done).rejects.toThrow(`its directory ${dir}/daemons/pr is a symbolic link: refused`);
    expect(await fake.pids()).toEqual([]);
  });

  // The real qemu-pr-helper runs here as root without multipath: it serves the socket, is restarted, is stopped.
  it('supervises the real /usr/bin/qemu-pr-helper', async () => {
    const role = start({ binary: '/usr/bin/qemu-pr-helper' });
    const port = await role.port();
    await waitFor(async () => (await get(port, '/readyz')).status === 200, 'ready on the real helper');
    kill9(role.started()[0]);
    const next = await waitFor(() => role.started()[1], 'the helper to be restarted');
    await waitFor(() => acceptsConnection(role.socket), 'the socket to accept again');
    expect(await restarts(port)).toBe(1);
    await role.stop();
    expect(alive(next)).toBe(false);
    expect(existsSync(role.socket)).toBe(false);
  });
});
