/**
 * Starting a helper process with stdout and stderr appended to a log, and stopping one of our own children
 * (SIGTERM, then SIGKILL after a grace period) through the handle that knows when it has been reaped.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { realClock, type Clock } from '../clock.ts';
import { KvError } from '../errors/errors.ts';

export interface SpawnSpec {
  readonly bin: string;
  readonly args: readonly string[];
  /**
   * Where stdout and stderr go: a file opened for appending (closed once the child has it), or a descriptor the
   * caller keeps and closes, with the path it names in messages.
   */
  readonly log: string | { readonly fd: number; readonly path: string };
  /** The child's whole environment; ours when absent. */
  readonly env?: NodeJS.ProcessEnv;
  /** Run as this user and group. */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** New session and process group (setsid): the child outlives us and ignores our terminal's Ctrl-C. */
  readonly detached?: boolean;
  /** Our event loop does not wait for the child (one tracked by PID, which another process may stop). */
  readonly unref?: boolean;
}

export interface ChildHandle {
  readonly pid: number;
  readonly bin: string;
  /** Resolves with the exit code (null after a signal) once the child is gone and reaped. */
  readonly exited: Promise<number | null>;
  running(): boolean;
}

/** Starts spec.bin and resolves once it has been spawned; a binary that cannot start fails naming the log. */
export async function spawnProcess(spec: SpawnSpec): Promise<ChildHandle> {
  const fd = typeof spec.log === 'string' ? openSync(spec.log, 'a') : spec.log.fd;
  const logPath = typeof spec.log === 'string' ? spec.log : spec.log.path;
  try {
    const child = spawn(spec.bin, [...spec.args], {
      stdio: ['ignore', fd, fd],
      detached: spec.detached ?? false,
      ...(spec.env !== undefined && { env: spec.env }),
      ...(spec.user !== undefined && { uid: spec.user.uid, gid: spec.user.gid }),
    });
    let done = false;
    const exited = new Promise<number | null>((resolve) => {
      child.on('error', () => {
        done = true;
        resolve(null);
      });
      child.once('exit', (code) => {
        done = true;
        resolve(code);
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    if (spec.unref === true) child.unref();
    if (child.pid === undefined) throw new KvError('KV_ERR_INTERNAL', `no pid for ${spec.bin}`);
    return { pid: child.pid, bin: spec.bin, exited, running: () => !done };
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `cannot start ${spec.bin} (log: ${logPath})`, { cause: err });
  } finally {
    if (typeof spec.log === 'string') closeSync(fd);
  }
}

/** SIGTERM, then SIGKILL when the child is still there after graceMs; resolves once it is reaped. */
export async function stopChild(h: ChildHandle, graceMs: number, clock: Clock = realClock): Promise<void> {
  if (!h.running()) return;
  process.kill(h.pid, 'SIGTERM');
  const timer = clock.after(graceMs, () => {
    if (h.running()) process.kill(h.pid, 'SIGKILL');
  });
  await h.exited;
  timer.cancel();
}
