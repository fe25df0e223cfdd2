import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareSocketPath } from './socket-dir.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pr-dir-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A socket file nobody listens on any more, as a killed helper leaves it (a clean close unlinks it). */
function staleSocket(path: string): void {
  const script = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script]);
}

describe('prepareSocketPath', () => {
  it('makes the missing socket directory 0755 and its parents', async () => {
    const sock = join(dir, 'daemons/pr/pr-helper.sock');
    expect(await prepareSocketPath(sock)).toBe(false);
    const st = await stat(join(dir, 'daemons/pr'));
    expect(st.isDirectory()).toBe(true);
    expect(st.mode & 0o777).toBe(0o755);
  });

  it('refuses a socket directory others may write to, and leaves it alone', async () => {
    await mkdir(join(dir, 'pr'));
    await chmod(join(dir, 'pr'), 0o777);
    await expect(prepareSocketPath(join(dir, 'pr/pr-helper.sock'))).rejects.toThrow(
      /pr is owned by uid \d+ with mode 777: refused/,
    );
    expect((await stat(join(dir, 'pr'))).mode & 0o777).toBe(0o777);
  });

  it('removes a socket left by an earlier run', async () => {
    await mkdir(join(dir, 'pr'));
    const sock = join(dir, 'pr/pr-helper.sock');
    staleSocket(sock);
    expect((await stat(sock)).isSocket()).toBe(true);
    expect(await prepareSocketPath(sock)).toBe(true);
    expect(existsSync(sock)).toBe(false);
  });

  it('refuses a socket directory that is a symbolic link, naming it', async () => {
    await mkdir(join(dir, 'elsewhere'));
    await symlink(join(dir, 'elsewhere'), join(dir, 'pr'));
    await expect(prepareSocketPath(join(dir, 'pr/pr-helper.sock'))).rejects.toThrow(
      `--socket ${dir}/pr/pr-helper.sock: its directory ${dir}/pr is a symbolic link: refused`,
    );
  });

  it('never removes or follows a link or a file in place of the socket', async () => {
    await mkdir(join(dir, 'pr'));
    await writeFile(join(dir, 'target'), 'keep');
    await symlink(join(dir, 'target'), join(dir, 'pr/pr-helper.sock'));
    await expect(prepareSocketPath(join(dir, 'pr/pr-helper.sock'))).rejects.toThrow(
      `${dir}/pr/pr-helper.sock is there and is not a unix socket: refused`,
    );
    await rm(join(dir, 'pr/pr-helper.sock'));
    await writeFile(join(dir, 'pr/pr-helper.sock'), 'keep');
    await expect(prepareSocketPath(join(dir, 'pr/pr-helper.sock'))).rejects.toThrow('is not a unix socket');
    expect(existsSync(join(dir, 'target'))).toBe(true);
    expect(existsSync(join(dir, 'pr/pr-helper.sock'))).toBe(true);
  });

  it('refuses a relative socket path', async () => {
    await expect(prepareSocketPath('pr/pr-helper.sock')).rejects.toThrow('give an absolute path');
  });
});
