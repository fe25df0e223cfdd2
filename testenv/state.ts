/**
 * state.json: everything another process (a jest worker, the testenv CLI) needs to find and control a
 * running test control plane. Written atomically (temp file + rename) on every change.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KvError } from '../lib/kernel/errors/errors.ts';

export interface ProcessState {
  bin: string;
  args: string[];
  logFile: string;
  /** 0 when not running. */
  pid: number;
}

export interface ControlPlaneState {
  version: 1;
  dir: string;
  kubeconfigPath: string;
  server: string;
  etcdEndpoint: string;
  ports: { apiserver: number; etcdClient: number; etcdPeer: number };
  /** PEM paths the control plane's own requests (readyz, namespace creation) use. */
  tls: { ca: string; cert: string; key: string };
  detached: boolean;
  /** The dir is a temp dir startControlPlane made (and was not asked to keep): stop() removes it. */
  removeOnStop: boolean;
  etcd: ProcessState;
  apiserver: ProcessState;
}

export function statePath(dir: string): string {
  return join(dir, 'state.json');
}

export async function writeState(s: ControlPlaneState): Promise<void> {
  const path = statePath(s.dir);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(s, null, 2) + '\n');
  await rename(tmp, path);
}

export async function readState(path: string): Promise<ControlPlaneState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `no control plane state at ${path}`, { cause: err });
  }
  const s = JSON.parse(text) as Partial<ControlPlaneState>;
  if (s.version !== 1 || s.etcd === undefined || s.apiserver === undefined) {
    throw new KvError('KV_ERR_CONFIG', `${path} is not a testenv state file (version 1)`);
  }
  return s as ControlPlaneState;
}
