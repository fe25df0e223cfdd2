/**
 * The virtualization roles `./dev run` runs as host processes against the local cluster (fast to restart
 * while developing; the operator will install them into the cluster from the image later): the rewriter and
 * the controller, each from this checkout (`cmd/main.ts <role>` under the project's Node and tsx), detached,
 * with its log under the stack's logs dir, tracked by PID in `<stack>/host-roles.json` and stopped by PID (the
 * cluster's `down` stops them first, so nothing keeps writing to a cluster going away).
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRunning, startProcess, stopProcess } from '../testenv/process.ts';
import { IMAGES, layout } from './layout.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath;
const TSX = join(REPO, 'node_modules/tsx/dist/loader.mjs');

export const REWRITER_LISTEN = '127.0.0.1:23915';

export interface HostRole {
  readonly name: 'rewriter' | 'controller';
  readonly args: readonly string[];
  readonly logFile: string;
  pid: number;
}

function roleSpecs(kubeconfig: string, logs: string): HostRole[] {
  const role = (name: HostRole['name'], args: string[]): HostRole => ({
    name,
    args: ['--import', TSX, join(REPO, 'cmd/main.ts'), name, '--kubeconfig', kubeconfig, ...args],
    logFile: join(logs, `${name}.log`),
    pid: 0,
  });
  return [
    role('rewriter', ['--listen', REWRITER_LISTEN, '--metrics-listen', '127.0.0.1:0']),
    role('controller', [
      '--launcher-image',
      IMAGES.virt,
      '--allow-emulation',
      'true',
      '--leader-elect',
      'false',
      '--health-port',
      '0',
    ]),
  ];
}

const stateFile = (dir?: string): string => join(layout(dir).dir, 'host-roles.json');

async function save(dir: string | undefined, roles: HostRole[]): Promise<void> {
  const file = stateFile(dir);
  await writeFile(`${file}.tmp`, `${JSON.stringify(roles, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

export async function readHostRoles(dir?: string): Promise<HostRole[]> {
  try {
    return JSON.parse(await readFile(stateFile(dir), 'utf8')) as HostRole[];
  } catch {
    return [];
  }
}

export const roleRunning = (r: HostRole): boolean => isRunning(r.pid, NODE);

/** Starts each role that does not run yet; resolves with all of them once each has run for a moment. */
export async function startHostRoles(kubeconfig: string, dir?: string): Promise<HostRole[]> {
  const known = await readHostRoles(dir);
  const roles = roleSpecs(kubeconfig, layout(dir).logs).map((spec) => {
    const prev = known.find((r) => r.name === spec.name);
    return prev !== undefined && roleRunning(prev) ? prev : spec;
  });
  for (const r of roles) {
    if (roleRunning(r)) continue;
    r.pid = await startProcess({ bin: NODE, args: [...r.args], logFile: r.logFile, detached: true });
    await save(dir, roles);
  }
  // A role that exits at once (a bad flag, no cluster) shows it within a second.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const dead = roles.filter((r) => !roleRunning(r));
  if (dead.length > 0)
    throw new Error(`${dead.map((r) => r.name).join(', ')} exited; see ${dead[0]?.logFile}`);
  return roles;
}

/** Stops every role this stack started (by PID), controller first. */
export async function stopHostRoles(dir?: string): Promise<string[]> {
  const roles = await readHostRoles(dir);
  const stopped: string[] = [];
  for (const r of [...roles].reverse()) {
    if (!roleRunning(r)) continue;
    await stopProcess(r.pid, NODE, { graceMs: 30_000 });
    stopped.push(r.name);
  }
  await rm(stateFile(dir), { force: true });
  return stopped;
}
