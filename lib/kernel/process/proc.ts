/**
 * What /proc says of a PID: its state, its command line, and whether it still runs a given program. The two
 * checks differ on purpose in how they read an empty /proc/PID/cmdline (a kernel thread, a process whose memory
 * is gone as it exits, and any process for an instant during each exec): isRunning counts it as running, since
 * only another program's command line means the PID moved on; cmdlineShows does not, since it must see the
 * program itself (a wait for an exec, a PID that is not our child and may be anything by now).
 */
import { readFileSync } from 'node:fs';

/** The program a PID should run: a path that is argv[0] (argv[1] for a script its interpreter runs), or a test of argv. */
export type Program = string | ((argv: readonly string[]) => boolean);

function procStat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 3 of /proc/PID/stat, after the parenthesised command name: R, S, D, T, Z (zombie), X (dead), … */
const stateOf = (stat: string): string => stat.charAt(stat.lastIndexOf(')') + 2);

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = procStat(pid);
  if (stat === undefined) return false;
  const state = stateOf(stat);
  return state !== 'Z' && state !== 'X';
}

/** The command line of pid (no trailing empty argument); [] when it reads empty, undefined when unreadable. */
function cmdline(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return text === '' ? [] : text.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

/** The command line of pid while it is a live (not zombie) process: [] when it reads empty, else undefined. */
export const liveCmdline = (pid: number): string[] | undefined => (alive(pid) ? cmdline(pid) : undefined);

export const runsProgram = (argv: readonly string[], program: Program): boolean =>
  typeof program === 'string' ? argv[0] === program || argv[1] === program : program(argv);

/**
 * True when pid is a live (not zombie) process running program (when given). A command line that reads empty or
 * not at all at that instant counts as running: a stop or a readiness wait must not take an exiting or exec'ing
 * process for gone.
 */
export function isRunning(pid: number, program?: Program): boolean {
  if (!alive(pid)) return false;
  if (program === undefined) return true;
  const argv = cmdline(pid);
  return argv === undefined || argv.length === 0 || runsProgram(argv, program);
}

/**
 * True only while /proc shows pid, live, running program. Unlike isRunning, an empty or unreadable command line
 * does not count: a wait for an exec must see the program itself, and a PID that is not our child (reused by a
 * kernel thread, say) is never taken for ours.
 */
export function cmdlineShows(pid: number, program: Program): boolean {
  const argv = liveCmdline(pid);
  return argv !== undefined && argv.length > 0 && runsProgram(argv, program);
}

/** What /proc says of pid, for a failure message: its state and argv[0], or that it is gone. */
export function describeProcess(pid: number): string {
  const stat = procStat(pid);
  if (stat === undefined) return 'no such process';
  const argv = cmdline(pid);
  return `state ${stateOf(stat)}, argv[0] ${argv === undefined ? '(unreadable)' : JSON.stringify(argv[0] ?? '')}`;
}
