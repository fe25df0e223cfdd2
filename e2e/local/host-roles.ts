/**
 * The virtualization roles `./dev run` runs as host processes against the local cluster (fast to restart
 * while developing; installing them into the cluster from the image is the operator's, a role not built): the
 * rewriter (with its webhook proxy in front of the api), the api on the node's address, two controller
 * replicas electing one leader, and the handler of node `local` with its REST server on the node's address
 * (after the node-labeller ran once), each from this checkout (`cmd/main.ts <role>` under the project's Node
 * and tsx), detached, with its log under the stack's logs dir, tracked by PID in `<stack>/host-roles.json`
 * and stopped by PID (the cluster's `down` stops them first, so nothing keeps writing to a cluster going
 * away).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRunning } from '../../lib/kernel/process/proc.ts';
import { spawnProcess } from '../../lib/kernel/process/spawn.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { sleep } from '../../lib/kernel/testing/wait.ts';
import { APISERVER_WEBHOOK_CLIENT_CN } from '../../lib/kubevirt/webhooks.ts';
import { certPaths } from '../../testenv/certs.ts';
import { IMAGES, layout, NETWORK, NODE_NAME, type Layout } from './layout.ts';
import type { ApiRegistration } from './virt-registration.ts';
import { ensureVirtCerts, HANDLER_SERVER_NAME, virtCertPaths } from './virt-pki.ts';

/** Where `virt launcher node-labeller` writes the node's facts for the handler. */
const labellerDir = (L: Layout): string => join(L.dir, 'node-labeller');

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const execFileAsync = promisify(execFile);
const NODE = process.execPath;
const TSX = join(REPO, 'node_modules/tsx/dist/loader.mjs');

const REWRITER_PORT = 23915;
export const REWRITER_LISTEN = `127.0.0.1:${REWRITER_PORT}`;
/** The rewriter's kube-api socket (0600): a request without credentials runs there as the roles' user. */
export const rewriterSocket = (L: Layout): string => join(L.dir, 'rewriter', 'kube-api.sock');
/** Where the API server reaches the rewriter's webhook proxy. */
const WEBHOOK_PROXY_PORT = 23918;
/** The api's and the handler REST server's ports on the node's address. */
export const API_PORT = 23916;
const CONSOLE_SERVER_PORT = 23917;
/** The namespace of the api's Service and the controllers' leader Lease. */
export const VIRT_NAMESPACE = 'kubevirt-ts';
/** The label of the namespaces whose objects the webhooks of `./dev run` admit (`default` and the e2e scenarios'). */
export const DEV_RUN_ADMISSION = ['virt.kubevirt-ts.io/admission', 'dev-run'] as const;

/** The webhook configurations of `./dev run` (validating and mutating). */
export const DEV_RUN_WEBHOOKS = 'kubevirt-ts-dev-run';

/** How kube-apiserver reaches the api of `./dev run`; its webhooks admit the namespaces labelled DEV_RUN_ADMISSION. */
export function devRunRegistration(caPem: string): ApiRegistration {
  return {
    namespace: VIRT_NAMESPACE,
    port: API_PORT,
    caPem,
    webhooks: {
      configName: DEV_RUN_WEBHOOKS,
      baseUrl: `https://127.0.0.1:${WEBHOOK_PROXY_PORT}`,
      scope: DEV_RUN_ADMISSION,
    },
  };
}
/** The user the roles run as here (the admin kubeconfig's certificate), which the api treats as its own. */
const ROLES_USER = 'admin';

export interface HostRole {
  readonly name: 'rewriter' | 'api' | 'controller' | 'controller-2' | 'handler';
  readonly args: readonly string[];
  readonly logFile: string;
  pid: number;
}

/** The handler's flags for node local: its root under the stack dir, the kubelet's pods dir, the labeller's output. */
export function handlerArgs(L: Layout): string[] {
  return [
    ...['--node-name', NODE_NAME, '--root', join(L.dir, 'handler')],
    ...['--kubelet-pods-dir', join(L.kubelet.root, 'pods'), '--node-labeller-dir', labellerDir(L)],
    ...['--port', '0'],
  ];
}

function roleSpecs(kubeconfig: string, L: Layout): HostRole[] {
  const logs = L.logs;
  const pki = virtCertPaths(L.dir);
  const role = (name: HostRole['name'], args: string[]): HostRole => ({
    name,
    args: [
      '--import',
      TSX,
      join(REPO, 'cmd/main.ts'),
      name.replace(/-\d+$/, ''),
      '--kubeconfig',
      kubeconfig,
      ...args,
    ],
    logFile: join(logs, `${name}.log`),
    pid: 0,
  });
  const node = NETWORK.nodeIp;
  const controller = [
    ...['--launcher-image', IMAGES.virt, '--allow-emulation', 'true'],
    ...['--leader-elect', 'true', '--namespace', VIRT_NAMESPACE, '--health-port', '0'],
  ];
  return [
    role('rewriter', [
      ...['--listen', REWRITER_LISTEN, '--listen-unix', rewriterSocket(L), '--metrics-listen', '127.0.0.1:0'],
      ...['--webhook-listen', `127.0.0.1:${WEBHOOK_PROXY_PORT}`],
      ...['--webhook-cert', pki.webhookServing.cert, '--webhook-key', pki.webhookServing.key],
      ...['--webhook-upstream', `https://${node}:${API_PORT}`, '--webhook-upstream-ca', pki.ca.cert],
      ...['--webhook-upstream-client-cert', pki.webhookClient.cert],
      ...['--webhook-upstream-client-key', pki.webhookClient.key],
      // kube-apiserver shows its webhook client certificate, of the cluster CA.
      ...['--webhook-client-ca-file', certPaths(L.controlPlane).ca.cert],
      ...['--webhook-client-allowed-names', APISERVER_WEBHOOK_CLIENT_CN],
    ]),
    role('api', [
      ...['--listen-address', node, '--port', String(API_PORT), '--health-port', '0'],
      ...['--tls-cert-file', pki.apiServing.cert, '--tls-private-key-file', pki.apiServing.key],
      ...['--console-server-port', String(CONSOLE_SERVER_PORT), '--handler-ca-file', pki.ca.cert],
      ...['--handler-client-cert-file', pki.apiHandlerClient.cert],
      ...['--handler-client-key-file', pki.apiHandlerClient.key],
      ...['--handler-server-name', HANDLER_SERVER_NAME, '--own-service-accounts', ROLES_USER],
      // The rewriter's webhook proxy shows a certificate of this CA with the default name.
      ...['--webhook-client-ca-file', pki.ca.cert],
    ]),
    role('controller', controller),
    role('controller-2', controller),
    // As the DaemonSet's privileged Pod would: root, the node's kubelet pods dir, the node-labeller's output.
    role('handler', [
      ...handlerArgs(L),
      ...['--console-server-address', node, '--console-server-port', String(CONSOLE_SERVER_PORT)],
      ...['--tls-cert-file', pki.handlerServing.cert, '--tls-key-file', pki.handlerServing.key],
      ...['--client-ca-file', pki.ca.cert],
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

/** The node-labeller's facts for the handler (KubeVirt runs it as the handler Pod's init container). */
async function runNodeLabeller(L: Layout): Promise<void> {
  const args = [
    '--import',
    TSX,
    join(REPO, 'cmd/main.ts'),
    'launcher',
    'node-labeller',
    '--output',
    labellerDir(L),
  ];
  await execFileAsync(NODE, args, { cwd: REPO });
}

/** Where a role accepts connections once it is up (the controllers serve nothing the stack reaches). */
function listensOn(name: HostRole['name']): [host: string, port: number][] {
  if (name === 'rewriter')
    return [
      ['127.0.0.1', REWRITER_PORT],
      ['127.0.0.1', WEBHOOK_PROXY_PORT],
    ];
  if (name === 'api') return [[NETWORK.nodeIp, API_PORT]];
  if (name === 'handler') return [[NETWORK.nodeIp, CONSOLE_SERVER_PORT]];
  return [];
}

const accepts = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });

/** The addresses of these roles that do not accept connections yet, named. */
async function notListening(roles: readonly HostRole[]): Promise<string[]> {
  const addresses = roles.flatMap((r) => listensOn(r.name).map(([host, port]) => ({ r, host, port })));
  const up = await Promise.all(addresses.map((a) => accepts(a.host, a.port)));
  return addresses.filter((_, i) => up[i] !== true).map((a) => `${a.r.name} on ${a.host}:${a.port}`);
}

const LISTEN_TIMEOUT_MS = 120_000;

/**
 * Starts each role that does not run yet; resolves with all of them once each accepts connections where it
 * serves (kube-apiserver calls the webhook proxy as soon as the webhooks are registered). A role that exits (a
 * bad flag, no cluster) fails it at once, naming its log.
 */
export async function startHostRoles(kubeconfig: string, dir?: string): Promise<HostRole[]> {
  const L = layout(dir);
  await runNodeLabeller(L);
  await ensureVirtCerts(L.dir);
  await mkdir(dirname(rewriterSocket(L)), { recursive: true, mode: 0o700 });
  const known = await readHostRoles(dir);
  const roles = roleSpecs(kubeconfig, L).map((spec) => {
    const prev = known.find((r) => r.name === spec.name);
    return prev !== undefined && roleRunning(prev) ? prev : spec;
  });
  for (const r of roles) {
    if (roleRunning(r)) continue;
    const child = await spawnProcess({
      bin: NODE,
      args: r.args,
      log: r.logFile,
      detached: true,
      unref: true,
    });
    r.pid = child.pid;
    await save(dir, roles);
  }
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  await sleep(1000); // a role that exits at once shows it within a second, even one that listens nowhere
  for (;;) {
    const dead = roles.filter((r) => !roleRunning(r));
    if (dead.length > 0)
      throw new Error(`${dead.map((r) => r.name).join(', ')} exited; see ${dead[0]?.logFile}`);
    const waiting = await notListening(roles);
    if (waiting.length === 0) return roles;
    if (Date.now() > deadline)
      throw new Error(
        `${waiting.join(', ')}: not listening after ${LISTEN_TIMEOUT_MS / 1000} s; see ${L.logs}`,
      );
    await sleep(250);
  }
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
