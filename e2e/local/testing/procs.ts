/** This host's processes, by their command line: what the local tests look for (QEMU, launchers). */
import { readdirSync, readFileSync } from 'node:fs';

/** PIDs whose argv (NUL-split /proc/<pid>/cmdline) passes `pred`; processes gone meanwhile are skipped. */
export function pidsWhere(pred: (argv: readonly string[]) => boolean): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (pred(readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0'))) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** PIDs whose command line names `text` anywhere (a VMI uid names its launcher and the launcher's children). */
export const pidsNaming = (text: string): number[] => pidsWhere((argv) => argv.some((a) => a.includes(text)));
