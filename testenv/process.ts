/**
 * Child processes of the test control plane: started with output appended to a log file, tracked and
 * stopped by PID only (never by name). Before signalling a PID we check /proc that it still runs the
 * binary we started, so a stale state.json can never kill an unrelated process that reused the PID.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { realClock } from '../lib/kernel/clock.ts';
import { KvError } from '../lib/kernel/errors/errors.ts';

export interface ProcessSpec {
  bin: string;
  args: string[];
  logFile: string;
  /** New session (setsid): the process outlives the caller and ignores its terminal's Ctrl-C. */
  detached: boolean;
}

/** Starts the process and resolves its PID once it has been spawned (the caller never owns a handle). */
export async function startProcess(spec: ProcessSpec): Promise<number> {
  const fd = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.bin, spec.args, { stdio: ['ignore', fd, fd], detached: spec.detached });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new KvError('KV_ERR_INTERNAL', `no pid for ${spec.bin}`);
    return child.pid;
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `cannot start ${spec.bin} (log: ${spec.logFile})`, { cause: err });
  } finally {
    closeSync(fd);
  }
}

function procStat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = procStat(pid);
  if (stat === undefined) return false;
  // Field 3 of /proc/PID/stat (after the parenthesised command name) is the state; Z is a zombie.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** The command line of pid (no trailing empty argument); [] while it is exiting or for an instant in an exec. */
function cmdline(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return text === '' ? [] : text.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

const liveArgv = (pid: number): string[] | undefined => (alive(pid) ? cmdline(pid) : undefined);

/** bin is argv[0], or argv[1] for an interpreted script (`#!/bin/sh` runs as `/bin/sh bin ...`). */
const runs = (argv: string[], bin: string): boolean => argv[0] === bin || argv[1] === bin;

/**
 * True when pid is a live (not zombie) process running bin (when given). A live process whose command line reads
 * empty or not at all at that instant still counts: only another program's command line means the PID moved on.
 */
export function isRunning(pid: number, bin?: string): boolean {
  return bin === undefined ? alive(pid) : !gone(pid, bin);
}

/**
 * True only once /proc shows pid running bin. Unlike isRunning, an empty or unreadable command line does not count:
 * it reads empty for an instant while a wrapper execs, so a wait for the exec must see the binary itself.
 */
export function execs(pid: number, bin: string): boolean {
  const argv = liveArgv(pid);
  return argv !== undefined && runs(argv, bin);
}

/**
 * argv[0] of pid while it is a start wrapper on its way to bin: it runs a tail of the spawned line (`unshare … /bin/sh
 * -c script kubelet /bin/kubelet …` shows first as itself, then as `/bin/sh -c script …`) and not yet bin. Else
 * undefined.
 */
export function wrapperOf(pid: number, line: readonly string[], bin: string): string | undefined {
  const argv = liveArgv(pid);
  if (argv === undefined || argv.length === 0 || argv.length > line.length || runs(argv, bin))
    return undefined;
  const tail = line.slice(line.length - argv.length);
  return argv.every((a, i) => a === tail[i]) ? argv[0] : undefined;
}

/** What /proc says of pid, for a failure message: its state and argv[0], or that it is gone. */
export function describeProcess(pid: number): string {
  const stat = procStat(pid);
  if (stat === undefined) return 'no such process';
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  const argv = cmdline(pid);
  return `state ${state}, argv[0] ${argv === undefined ? '(unreadable)' : JSON.stringify(argv[0] ?? '')}`;
}

/** Gone: dead, a zombie, or the PID now runs another program. A process still exiting is not gone. */
function gone(pid: number, bin: string): boolean {
  if (!alive(pid)) return true;
  const argv = cmdline(pid);
  return argv !== undefined && argv.length > 0 && !runs(argv, bin);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ESRCH') throw err;
  }
}

/** Resolves true when the process is gone before timeoutMs elapses. */
async function waitExit(pid: number, bin: string, timeoutMs: number): Promise<boolean> {
  const deadline = realClock.now() + timeoutMs;
  while (!gone(pid, bin)) {
    if (realClock.now() >= deadline) return false;
    await realClock.sleep(50);
  }
  return true;
}

export interface StopOptions {
  signal?: NodeJS.Signals;
  /** How long to wait after `signal` before SIGKILL. */
  graceMs?: number;
}

/** Sends signal (default SIGTERM), then SIGKILL after the grace; resolves once the process is gone. */
export async function stopProcess(pid: number, bin: string, o: StopOptions = {}): Promise<void> {
  if (!isRunning(pid, bin)) return;
  const sig = o.signal ?? 'SIGTERM';
  signal(pid, sig);
  if (sig !== 'SIGKILL' && (await waitExit(pid, bin, o.graceMs ?? 10_000))) return;
  if (isRunning(pid, bin)) signal(pid, 'SIGKILL');
  if (!(await waitExit(pid, bin, 10_000))) {
    throw new KvError('KV_ERR_TIMEOUT', `process ${pid} (${bin}) did not exit after SIGKILL`);
  }
}
