/**
 * Starting and stopping the node's processes by PID (lib/kernel/process: /proc is checked before any signal),
 * each detached with its log under the stack's logs dir, and waiting for each to be healthy.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import {
  cmdlineShows,
  describeProcess,
  isRunning,
  liveCmdline,
  runsProgram,
} from '../../lib/kernel/process/proc.ts';
import { spawnProcess } from '../../lib/kernel/process/spawn.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { waitUntilReady } from '../../testenv/ready.ts';
import { attempt } from './exec.ts';
import type { LocalProcess } from './state.ts';

export async function startLocal(p: LocalProcess): Promise<number> {
  const spec = p.spawn ?? { cmd: p.bin, args: p.args };
  const child = await spawnProcess({
    bin: spec.cmd,
    args: spec.args,
    log: p.logFile,
    detached: true,
    unref: true,
  });
  p.pid = child.pid;
  return p.pid;
}

/**
 * Waits for probe. A spawn wrapper (the kubelet's unshare and shield script) runs first under the same PID: while
 * that PID lives and does not run the expected binary yet, it is still starting, however loaded the host is.
 */
export async function waitHealthy(
  what: string,
  p: LocalProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const started = realClock.now();
  if (p.spawn !== undefined) await waitExec(what, p, timeoutMs);
  const left = Math.max(0, timeoutMs - (realClock.now() - started));
  await waitUntilReady(probe, { what, pid: p.pid, bin: p.bin, logFile: p.logFile, timeoutMs: left });
}

/** Returns once p's PID runs p.bin or has ended (waitUntilReady then says it exited, with its log). */
async function waitExec(what: string, p: LocalProcess, timeoutMs: number): Promise<void> {
  const deadline = realClock.now() + timeoutMs;
  while (isRunning(p.pid) && !cmdlineShows(p.pid, p.bin)) {
    if (realClock.now() >= deadline) {
      const why = `pid ${p.pid} had not exec'd ${p.bin} within ${timeoutMs} ms (${describeProcess(p.pid)})`;
      throw new KvError('KV_ERR_TIMEOUT', `${what}: ${why}`);
    }
    await realClock.sleep(20);
  }
}

export function running(p: LocalProcess | undefined): boolean {
  return p !== undefined && isRunning(p.pid, p.bin);
}

/**
 * argv[0] of pid while it is a start wrapper on its way to bin: it runs a tail of the spawned line (`unshare … /bin/sh
 * -c script kubelet /bin/kubelet …` shows first as itself, then as `/bin/sh -c script …`) and not yet bin. Else
 * undefined.
 */
export function wrapperOf(pid: number, line: readonly string[], bin: string): string | undefined {
  const argv = liveCmdline(pid);
  if (argv === undefined || argv.length === 0 || argv.length > line.length || runsProgram(argv, bin))
    return undefined;
  const tail = line.slice(line.length - argv.length);
  return argv.every((a, i) => a === tail[i]) ? argv[0] : undefined;
}

/** Stops p by PID, also while it is still in its start wrapper (which would exec p.bin after any check of bin). */
export async function stopLocal(p: LocalProcess | undefined, graceMs = 10_000): Promise<void> {
  if (p === undefined || p.pid === 0) return;
  const wrapper = p.spawn === undefined ? undefined : wrapperOf(p.pid, [p.spawn.cmd, ...p.spawn.args], p.bin);
  if (wrapper !== undefined) await stopProcess(p.pid, wrapper, { signal: 'SIGKILL' });
  await stopProcess(p.pid, p.bin, { graceMs });
  p.pid = 0;
}

/** Kills and deletes every task and container in containerd's k8s.io namespace; ctr is the argv up to its flags. */
export async function removeTasks(ctr: readonly string[]): Promise<void> {
  const [cmd = '', ...pre] = ctr;
  const c = (args: string[]) => attempt(cmd, [...pre, '--namespace', 'k8s.io', ...args]);
  const tasks = (await c(['tasks', 'ls', '-q'])).stdout.split('\n').filter((t) => t !== '');
  for (const t of tasks) {
    await c(['tasks', 'kill', '--signal', 'SIGKILL', t]);
    await c(['tasks', 'delete', '--force', t]);
  }
  const containers = (await c(['containers', 'ls', '-q'])).stdout.split('\n').filter((t) => t !== '');
  for (const id of containers) await c(['containers', 'delete', id]);
}
