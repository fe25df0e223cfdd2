import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { acceptsConnection } from '../lib/pr-helper/role.ts';
import { writeFakeHelper } from '../lib/pr-helper/testing/fake-helper.ts';

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
});
