/** Short-lived test processes: `sh -c script` with its output in a log file, resolved once it printed "ready". */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../../testing/wait.ts';
import { describeProcess } from '../proc.ts';
import { spawnProcess, type ChildHandle } from '../spawn.ts';

/** A shell loop that outlives any test unless it is stopped. */
export const LOOP = 'while :; do sleep 1; done';

const logText = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

export async function startShell(
  dir: string,
  name: string,
  script: string,
  o: { detached?: boolean } = {},
): Promise<{ child: ChildHandle; logFile: string }> {
  const logFile = join(dir, `${name}.log`);
  const child = await spawnProcess({
    bin: '/bin/sh',
    args: ['-c', script],
    log: logFile,
    ...(o.detached !== undefined && { detached: o.detached }),
  });
  await waitFor(() => logText(logFile).includes('ready'), `${name} to print ready`, { intervalMs: 20 });
  return { child, logFile };
}

/** A zombie (`pid`): the child of `/bin/sleep 60` (`parent`, which never waits for it) once it has exited. */
export async function startZombie(dir: string, name: string): Promise<{ pid: number; parent: ChildHandle }> {
  const script = 'sleep 0.2 & echo "zombie $!"; echo ready; exec /bin/sleep 60';
  const { child, logFile } = await startShell(dir, name, script);
  const pid = Number(/zombie (\d+)/.exec(logText(logFile))?.[1]);
  await waitFor(() => describeProcess(pid).startsWith('state Z'), `pid ${pid} to be a zombie`);
  return { pid, parent: child };
}
