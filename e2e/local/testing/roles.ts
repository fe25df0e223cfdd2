/**
 * The roles a local-cluster test runs itself: the controller in this process (watching the test's namespace),
 * and the handler of node `local` as a child process from this checkout (so a test can kill -9 it and start it
 * again), with the node-labeller's output and the handler's root under the stack dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runControllerRole } from '../../../lib/controller/role.ts';
import { IMAGE_VIRTIOFSD } from '../../../lib/controller/vmi/virtiofs-containers.ts';
import { loadRestConfig } from '../../../lib/kernel/kube/index.ts';
import type { RestPki } from '../../../lib/handler/rest/testing/pki.ts';
import { createLogger, nopLogger } from '../../../lib/kernel/log/log.ts';
import { IMAGES, layout, NODE_NAME, type Layout } from '../layout.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface Running {
  stop(): Promise<void>;
}

/** The controller role in this process, for one namespace (KV_CONTROLLER_TEST_LOG=1 shows its log). */
export function controllerHere(kubeconfig: string, ns: string): Running {
  const ac = new AbortController();
  const log =
    process.env['KV_CONTROLLER_TEST_LOG'] === '1' ? createLogger({ component: 'controller' }) : nopLogger;
  const done = runControllerRole(
    {
      config: loadRestConfig({ kubeconfig, inCluster: false, qps: 0 }),
      leaseNamespace: ns,
      leaderElect: false,
      workers: 2,
      healthPort: 0,
      healthHost: '127.0.0.1',
      watchNamespace: ns,
      launcher: {
        image: IMAGES.virt,
        imagePullPolicy: 'Never',
        allowEmulation: true,
        virtiofsd: IMAGE_VIRTIOFSD,
      },
      log,
    },
    ac.signal,
  );
  return {
    stop: async (): Promise<void> => {
      ac.abort();
      await done;
    },
  };
}

/** The handler's flags for node local: its root and the node-labeller's output under the stack dir, the kubelet's pods dir. */
function handlerArgs(L: Layout): string[] {
  return [
    ...['--node-name', NODE_NAME, '--root', join(L.dir, 'handler')],
    ...[
      '--kubelet-pods-dir',
      join(L.kubelet.root, 'pods'),
      '--node-labeller-dir',
      join(L.dir, 'node-labeller'),
    ],
    ...['--port', '0'],
  ];
}

export interface HandlerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly logFile: string;
  /** Where this process's lines start in the shared log file. */
  readonly logOffset: number;
}

/** `virt handler` for node local as a child process (its log appended to `<stack>/logs/handler-test.log`). */
export function spawnHandler(
  kubeconfig: string,
  dir?: string,
  extra: readonly string[] = [],
): HandlerProcess {
  const L = layout(dir);
  mkdirSync(L.logs, { recursive: true });
  const logFile = join(L.logs, 'handler-test.log');
  const fd = openSync(logFile, 'a');
  const logOffset = fstatSync(fd).size;
  const args = [
    ...['--import', join(REPO, 'node_modules/tsx/dist/loader.mjs'), join(REPO, 'cmd/main.ts'), 'handler'],
    ...['--kubeconfig', kubeconfig, ...handlerArgs(L)],
    ...extra,
  ];
  // Its scratch dirs go under the stack's dir, so a handler a test kills leaves nothing in the host's /tmp.
  const tmp = join(L.dir, 'handler-tmp');
  mkdirSync(tmp, { recursive: true });
  const env = { ...process.env, TMPDIR: tmp };
  const child = spawn(process.execPath, args, { stdio: ['ignore', fd, fd], cwd: REPO, env });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      resolve(code);
    }),
  );
  return { child, exited, logFile, logOffset };
}

/** The JSON lines this handler process has logged so far. */
export function handlerLines(h: HandlerProcess): Record<string, unknown>[] {
  const lines = readFileSync(h.logFile).subarray(h.logOffset).toString('utf8').split('\n');
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** The port this handler process logged with `msg` ('health server listening', 'console server listening'). */
export function handlerPort(h: HandlerProcess, msg = 'health server listening'): number | undefined {
  const ports = handlerLines(h).flatMap((j) =>
    j['msg'] === msg && typeof j['port'] === 'number' ? [j['port']] : [],
  );
  return ports.at(-1);
}

/**
 * Handler flags for its REST server (on loopback and any port unless `at` says otherwise), with the run's
 * certificates written under `<dir>/<name>` (the client CA stands in for the api's).
 */
export async function consoleServerFlags(
  dir: string,
  name: string,
  pki: RestPki,
  at: { address: string; port: number } = { address: '127.0.0.1', port: 0 },
): Promise<string[]> {
  const files = join(dir, name);
  mkdirSync(files, { recursive: true });
  const pems = { 'ca.pem': pki.ca.cert, 'cert.pem': pki.server.cert, 'key.pem': pki.server.key };
  for (const [file, pem] of Object.entries(pems)) await writeFile(join(files, file), pem, { mode: 0o600 });
  return [
    ...['--console-server-port', String(at.port), '--console-server-address', at.address],
    ...['--client-ca-file', join(files, 'ca.pem'), '--tls-cert-file', join(files, 'cert.pem')],
    ...['--tls-key-file', join(files, 'key.pem')],
  ];
}

/** SIGTERM and wait (SIGKILL after graceMs). */
export async function stopHandler(h: HandlerProcess, graceMs = 30_000): Promise<void> {
  if (h.child.exitCode !== null || h.child.signalCode !== null) return;
  h.child.kill('SIGTERM');
  const timer = setTimeout(() => h.child.kill('SIGKILL'), graceMs);
  await h.exited;
  clearTimeout(timer);
}
