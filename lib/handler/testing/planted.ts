/**
 * For tests of what the handler does in a launcher Pod's emptyDirs: a kubelet-like pods dir with one Pod's
 * emptyDirs (lib/rpc podVolumeOnNode), more Pods added to it when asked, and the host things a tenant would
 * aim a planted symlink at: a file (its content, owner and mode recorded to compare) and a socket that counts
 * the connections it gets. `countingSocket` puts such a count in front of a real server's socket.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podVolumeOnNode } from '../../rpc/index.ts';

export interface PodDirs {
  readonly podsDir: string;
  readonly podUid: string;
  /** The emptyDir `name` of the Pod (created). */
  volume(name: string): string;
  /** Adds Pod `podUid` with the emptyDirs `volumes` to the same pods dir; its emptyDir `name` by name. */
  addPod(podUid: string, volumes: readonly string[]): Promise<(name: string) => string>;
  cleanup(): Promise<void>;
}

async function podVolumes(
  podsDir: string,
  podUid: string,
  volumes: readonly string[],
): Promise<(name: string) => string> {
  const volume = (name: string): string => podVolumeOnNode(podsDir, podUid, name);
  for (const v of volumes) await mkdir(volume(v), { recursive: true, mode: 0o755 });
  return volume;
}

/** A pods dir holding Pod `podUid` with the emptyDirs `volumes`; every directory is 0755 (the launcher is 107). */
export async function podDirs(podUid: string, volumes: readonly string[]): Promise<PodDirs> {
  const podsDir = await mkdtemp(join(tmpdir(), 'kv-pods-'));
  await chmod(podsDir, 0o755);
  return {
    podsDir,
    podUid,
    volume: await podVolumes(podsDir, podUid, volumes),
    addPod: (uid, more) => podVolumes(podsDir, uid, more),
    cleanup: () => rm(podsDir, { recursive: true, force: true }),
  };
}

interface FileFacts {
  readonly content: string;
  readonly uid: number;
  readonly gid: number;
  readonly mode: number;
}

export interface HostTargets {
  /** A host file (mode 0600, owned by this process). */
  readonly file: string;
  /** A host socket; `connections` counts what reached it. */
  readonly socket: string;
  readonly connections: number;
  facts(): Promise<FileFacts>;
  cleanup(): Promise<void>;
}

export async function hostTargets(): Promise<HostTargets> {
  const dir = await mkdtemp(join(tmpdir(), 'kv-host-'));
  const file = join(dir, 'secret');
  await writeFile(file, 'host secret\n', { mode: 0o600 });
  let connections = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((c) => {
    connections++;
    open.add(c);
    c.on('error', () => undefined).on('close', () => open.delete(c));
    c.end('host socket\n');
  });
  const socket = join(dir, 'host.sock');
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    file,
    socket,
    get connections(): number {
      return connections;
    },
    facts: async (): Promise<FileFacts> => {
      const st = await stat(file);
      return { content: await readFile(file, 'utf8'), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
    },
    cleanup: async (): Promise<void> => {
      // Whatever reached it (a client that does not hang up) is cut, so the server closes.
      for (const c of open) c.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface CountingSocket {
  /** Connections made to `at` so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Listens at `at`, counts each connection and passes it on to the socket `to` (a real server's). */
export async function countingSocket(at: string, to: string): Promise<CountingSocket> {
  let connections = 0;
  const open = new Set<Socket>();
  const server = createServer((c) => {
    connections++;
    const up = connect(to);
    for (const s of [c, up]) {
      open.add(s);
      s.on('error', () => undefined).on('close', () => open.delete(s));
    }
    c.pipe(up).pipe(c);
  });
  await new Promise<void>((resolve) => server.listen(at, resolve));
  return {
    get connections(): number {
      return connections;
    },
    close: async (): Promise<void> => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
