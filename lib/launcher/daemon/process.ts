/**
 * The launcher's helper processes (virtlogd, libvirtd) and the QEMU processes libvirt leaves behind: started
 * with output appended to a log file, stopped by PID only (SIGTERM, then SIGKILL after a grace period).
 * Before signalling a PID that is not our child we check /proc that it still runs the expected program.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';

export interface Identity {
  readonly uid: number;
  readonly gid: number;
  /** 'self' when the daemons run as we do. */
  readonly name: string;
}

export interface ChildHandle {
  readonly pid: number;
  readonly bin: string;
  /** Resolves with the exit code (null after a signal) once the child is gone and reaped. */
  readonly exited: Promise<number | null>;
  running(): boolean;
}

/** Starts `bin` with stdout and stderr on `log.fd` (the caller's to close; `log.path` is for messages). */
export function spawnLogged(
  bin: string,
  args: readonly string[],
  o: { env: NodeJS.ProcessEnv; identity: Identity; log: { fd: number; path: string } },
): ChildHandle {
  const fd = o.log.fd;
  const asUser = o.identity.name === 'self' ? {} : { uid: o.identity.uid, gid: o.identity.gid };
  const child = spawn(bin, [...args], { env: o.env, stdio: ['ignore', fd, fd], ...asUser });
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => {
      done = true;
      resolve(null);
    });
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    });
  });
  if (child.pid === undefined) throw new KvError('KV_ERR_CONFIG', `cannot start ${bin} (log: ${o.log.path})`);
  return { pid: child.pid, bin, exited, running: () => !done };
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

/** argv of pid, undefined when there is no such process (or it is a zombie whose memory is gone). */
function cmdlineOf(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return text === '' ? undefined : text.split('\0').filter((a) => a !== '');
  } catch {
    return undefined;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone in between.
  }
}

/**
 * Stops a process that is not our child (QEMU, reparented when libvirtd ended) if its command line still
 * satisfies `isOurs`; polls /proc until it is gone.
 */
export async function stopForeign(
  pid: number,
  isOurs: (argv: readonly string[]) => boolean,
  o: { graceMs: number; clock?: Clock },
): Promise<void> {
  const clock = o.clock ?? realClock;
  const argv = cmdlineOf(pid);
  if (argv === undefined || !isOurs(argv)) return;
  signal(pid, 'SIGTERM');
  const deadline = clock.now() + o.graceMs;
  while (cmdlineOf(pid) !== undefined) {
    if (clock.now() > deadline) {
      signal(pid, 'SIGKILL');
      await clock.sleep(50);
      if (clock.now() > deadline + 5000) return;
      continue;
    }
    await clock.sleep(20);
  }
}
