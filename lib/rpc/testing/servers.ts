/** Test helpers for lib/rpc: a temp root per test and a server bound under it. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from '@grpc/grpc-js';
import { listenUnix, shutdownServer } from '../listen.ts';

export interface TempRoot {
  readonly dir: string;
  cleanup(): Promise<void>;
}

/** A fresh short temp directory (socket paths must stay under 107 bytes). */
export async function tempRoot(): Promise<TempRoot> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kv-rpc-'));
  return {
    dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface Serving {
  readonly server: Server;
  stop(): Promise<void>;
}

/** Binds `server` on `socketPath`; stop() cancels whatever is still running. */
export async function serve(server: Server, socketPath: string): Promise<Serving> {
  await listenUnix(server, socketPath);
  return { server, stop: () => shutdownServer(server, 0) };
}
