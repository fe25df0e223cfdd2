/**
 * Starting and stopping the node's processes by PID (testenv/process.ts: /proc is checked before any
 * signal), each detached with its log under the stack's logs dir, and waiting for each to be healthy.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { isRunning, startProcess, stopProcess } from '../testenv/process.ts';
import { waitUntilReady } from '../testenv/ready.ts';
import type { LocalProcess } from './state.ts';

export async function startLocal(p: LocalProcess): Promise<number> {
  const spec = p.spawn ?? { cmd: p.bin, args: p.args };
  p.pid = await startProcess({ bin: spec.cmd, args: spec.args, logFile: p.logFile, detached: true });
  return p.pid;
}

/** Waits for probe; the PID must show the expected binary once it has exec'd (the kubelet via unshare). */
export async function waitHealthy(
  what: string,
  p: LocalProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  if (p.spawn !== undefined) {
    const deadline = realClock.now() + 5_000;
    while (!isRunning(p.pid, p.bin) && realClock.now() < deadline) await realClock.sleep(20);
  }
  await waitUntilReady(probe, { what, pid: p.pid, bin: p.bin, logFile: p.logFile, timeoutMs });
}

export function running(p: LocalProcess | undefined): boolean {
  return p !== undefined && isRunning(p.pid, p.bin);
}

export async function stopLocal(p: LocalProcess | undefined, graceMs = 10_000): Promise<void> {
  if (p === undefined || p.pid === 0) return;
  await stopProcess(p.pid, p.bin, { graceMs });
  p.pid = 0;
}
