/** What several benches compute: medians and percentiles of samples, and a process's memory and CPU. */
import { readFile } from 'node:fs/promises';

export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The p-th percentile (0–100), nearest rank from above; 0 for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** A process's resident memory (MiB) and the CPU it used so far (clock ticks, user + system). */
export async function procStat(pid: number): Promise<{ rssMiB: number; cpuTicks: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.split(') ')[1]?.split(' ') ?? [];
  return {
    rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024,
    cpuTicks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0),
  };
}
