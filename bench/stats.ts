/** What several benches compute: medians and percentiles of samples, and a process's memory and CPU. */
import { readFile } from 'node:fs/promises';

export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The p-th percentile (0–100), nearest rank from above; 0 for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** What /proc/<pid>/stat says of a process: its name, CPU so far (clock ticks, user + system), start (ticks after boot). */
export interface ProcStatLine {
  readonly comm: string;
  readonly cpuTicks: number;
  readonly startTicks: number;
}

/** Reads /proc/<pid>/stat (the name may hold spaces and parentheses); undefined for a process gone. */
export async function readProcStat(pid: number): Promise<ProcStatLine | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < 0) return undefined;
  const f = stat.slice(close + 2).split(' ');
  return {
    comm: stat.slice(open + 1, close),
    cpuTicks: Number(f[11]) + Number(f[12]),
    startTicks: Number(f[19]),
  };
}

/** A process's resident memory (MiB) and the CPU it used so far (clock ticks, user + system). */
export async function procStat(pid: number): Promise<{ rssMiB: number; cpuTicks: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return {
    rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024,
    cpuTicks: (await readProcStat(pid))?.cpuTicks ?? 0,
  };
}
