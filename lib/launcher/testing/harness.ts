/**
 * A test handler for one launcher: a short temp --root, the test guests staged where a kernel-boot container
 * and a containerDisk would put them, a Notify server recording domain events, the launcher as a child
 * process (`node --import tsx cmd/main.ts launcher`), and a Cmd client once it serves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
} from 'node:fs';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_CLUSTER_DEFAULTS,
  withVmiDefaults,
  type Disk,
  type VirtualMachineInstance,
  type Volume,
} from '../../kubevirt/index.ts';
import { realClock } from '../../kernel/clock.ts';
import {
  decodeDomainEvent,
  listenUnix,
  newCmdClient,
  newNotifyServer,
  podLayout,
  shutdownServer,
  type DomainEvent,
  type LauncherClient,
  type PodLayout,
} from '../../rpc/index.ts';
import { DEFAULT_CAPS_CACHE } from '../../../testenv/libvirt/daemon.ts';
import type { Server } from '@grpc/grpc-js';
import { waitFor } from '../../kernel/testing/wait.ts';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** Node arguments that run `virt launcher` from the checkout (cmd/main.ts loads only the launcher role). */
export const VIRT_LAUNCHER = [
  '--import',
  'tsx',
  fileURLToPath(new URL('../../../cmd/main.ts', import.meta.url)),
  'launcher',
];
/** libvirt's QEMU capabilities, shared with the other private daemons of the tests (testenv/libvirt). */
export const CAPS_CACHE = DEFAULT_CAPS_CACHE;

interface Guest {
  readonly kernel: string;
  readonly initrd: string;
  readonly dataDisk?: string;
}

export interface VmiSpecOptions {
  readonly name: string;
  readonly uid: string;
  readonly namespace?: string;
  readonly initrd: string;
  readonly cmdline: string;
  /** A containerDisk volume `data` (the staged data disk, qcow2). */
  readonly dataDisk?: boolean;
  /** An emptyDisk volume `scratch` of this capacity, after `data`. */
  readonly emptyDisk?: string;
  readonly memory?: string;
  readonly firmwareUuid?: string;
}

/** A kernel-boot VMI for the staged guest, with KubeVirt's defaults applied. */
export function kernelBootVmi(opts: VmiSpecOptions): VirtualMachineInstance {
  const disks: Disk[] = [];
  const volumes: Volume[] = [];
  if (opts.dataDisk === true) {
    disks.push({ name: 'data', disk: { bus: 'virtio' } });
    volumes.push({ name: 'data', containerDisk: { image: 'test/data:v1' } });
  }
  if (opts.emptyDisk !== undefined) {
    disks.push({ name: 'scratch', disk: { bus: 'virtio' } });
    volumes.push({ name: 'scratch', emptyDisk: { capacity: opts.emptyDisk } });
  }
  const vmi: VirtualMachineInstance = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: opts.name, namespace: opts.namespace ?? 'default', uid: opts.uid },
    spec: {
      terminationGracePeriodSeconds: 5,
      domain: {
        memory: { guest: opts.memory ?? '192Mi' },
        firmware: {
          kernelBoot: {
            kernelArgs: opts.cmdline,
            container: {
              image: 'test/guest:v1',
              kernelPath: '/boot/vmlinux',
              initrdPath: `/boot/${opts.initrd}`,
            },
          },
        },
        devices: {
          autoattachPodInterface: false,
          autoattachGraphicsDevice: false,
          ...(disks.length > 0 && { disks }),
        },
      },
      ...(volumes.length > 0 && { volumes }),
    },
  };
  // The API's mutating webhook always sets firmware.uuid (the converter's SMBIOS sysinfo needs it).
  return withVmiDefaults(vmi, DEFAULT_CLUSTER_DEFAULTS, { firmwareUuid: opts.firmwareUuid ?? opts.uid });
}

function linkOrCopy(from: string, to: string): void {
  rmSync(to, { force: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** Puts the guest files where the launcher's converter looks for them (hard links: /root is not readable). */
function stageGuest(root: string, guest: Guest): void {
  const layout = podLayout(root);
  const boot = join(layout.kernelBootDir, 'boot');
  const disk = join(layout.containerDiskDir(0), 'disk');
  for (const d of [boot, disk]) mkdirSync(d, { recursive: true });
  linkOrCopy(guest.kernel, join(boot, 'vmlinux'));
  linkOrCopy(guest.initrd, join(boot, basename(guest.initrd)));
  if (guest.dataDisk !== undefined) copyFileSync(guest.dataDisk, join(disk, 'data.qcow2'));
  for (const d of [layout.kernelBootDir, boot, layout.imageVolumeDir, dirname(disk), disk])
    chmodSync(d, 0o755);
}

export interface LauncherProcess {
  readonly root: string;
  readonly paths: PodLayout;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly events: DomainEvent[];
  client: LauncherClient;
  /** Resolves with the first recorded event (from `from` on) that matches. */
  waitEvent(match: (e: DomainEvent) => boolean, timeoutMs: number, from?: number): Promise<DomainEvent>;
  /** Reads the serial console socket until a whole line with `text` shows up. */
  readSerial(text: string, timeoutMs: number): Promise<string>;
  /** Types text on the serial console. */
  typeSerial(text: string): Promise<void>;
  /** SIGTERM and the exit code. */
  terminate(timeoutMs: number): Promise<number | null>;
  cleanup(): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly uid: string;
  readonly namespace?: string;
  readonly guest: Guest;
  readonly emulation?: 'auto' | 'on' | 'off';
  readonly gracePeriodSeconds?: number;
  readonly readyTimeoutMs?: number;
  /** Node arguments that run `virt launcher` (default: VIRT_LAUNCHER). */
  readonly command?: readonly string[];
}

export const domainStatus = (e: DomainEvent): { Status?: string; Reason?: string } =>
  (e.domain as { Status?: { Status?: string; Reason?: string } } | undefined)?.Status ?? {};

async function notifyServer(paths: PodLayout, events: DomainEvent[]): Promise<Server> {
  const server = newNotifyServer({
    handleDomainEvent: (req) => {
      events.push(decodeDomainEvent(req));
      return Promise.resolve({ success: true, message: '' });
    },
    handleK8SEvent: () => Promise.resolve({ success: true, message: '' }),
  });
  await listenUnix(server, paths.notifySocket);
  return server;
}

async function connectWhenReady(
  socket: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<LauncherClient> {
  const deadline = realClock.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`launcher exited with ${child.exitCode} before serving`);
    try {
      return await newCmdClient(socket);
    } catch (err) {
      if (realClock.now() > deadline) throw err;
      await realClock.sleep(100);
    }
  }
}

export async function startLauncher(opts: StartOptions): Promise<LauncherProcess> {
  const root = mkdtempSync('/tmp/kvl-');
  chmodSync(root, 0o755);
  stageGuest(root, opts.guest);
  const paths = podLayout(root);
  const events: DomainEvent[] = [];
  const notify = await notifyServer(paths, events);
  const args = [
    ...(opts.command ?? VIRT_LAUNCHER),
    ...['--name', opts.name, '--namespace', opts.namespace ?? 'default'],
    ...[
      '--uid',
      opts.uid,
      '--root',
      root,
      '--emulation',
      opts.emulation ?? 'auto',
      '--qemu-caps-cache',
      CAPS_CACHE,
    ],
    ...['--grace-period-seconds', String(opts.gracePeriodSeconds ?? 5)],
  ];
  const logFd = openSync(join(root, 'launcher.log'), 'a');
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  const client = await connectWhenReady(paths.launcherSocket, child, opts.readyTimeoutMs ?? 60_000);
  const p: LauncherProcess = {
    root,
    paths,
    child,
    exited,
    events,
    client,
    waitEvent: (match, timeoutMs, from = 0) =>
      waitFor(() => events.slice(from).find(match), 'a matching domain event', { timeoutMs }),
    readSerial: (text, timeoutMs) => readSerial(paths.serialSocket(opts.uid), text, timeoutMs),
    typeSerial: (text) => typeSerial(paths.serialSocket(opts.uid), text),
    terminate: async (timeoutMs) => {
      child.kill('SIGTERM');
      const stop = new AbortController();
      const late = realClock.sleep(timeoutMs, stop.signal).then(
        () => 'timeout' as const,
        () => 'cancelled' as const,
      );
      const r = await Promise.race([exited, late]);
      stop.abort();
      if (r === 'timeout') throw new Error(`launcher still running ${timeoutMs} ms after SIGTERM`);
      return r === 'cancelled' ? null : r;
    },
    cleanup: async () => {
      p.client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      for (const pid of processesUnder(root)) process.kill(pid, 'SIGKILL');
      await shutdownServer(notify, 0);
      if (process.env['KEEP_LAUNCHER_ROOT'] === undefined) rmSync(root, { recursive: true, force: true });
    },
  };
  return p;
}

/**
 * Two launchers of one VMI, each under its own root as two Pods on two nodes: the source first, then the
 * migration target (started with the same name and uid, no domain yet).
 */
export async function startMigrationPair(
  opts: StartOptions,
): Promise<{ source: LauncherProcess; target: LauncherProcess; cleanup: () => Promise<void> }> {
  const source = await startLauncher(opts);
  let target: LauncherProcess;
  try {
    target = await startLauncher(opts);
  } catch (err) {
    await source.cleanup();
    throw err;
  }
  return {
    source,
    target,
    cleanup: async (): Promise<void> => {
      await target.cleanup();
      await source.cleanup();
    },
  };
}

function typeSerial(socket: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path: socket }, () => {
      s.end(text, () => {
        resolve();
      });
    });
    s.on('data', () => undefined);
    s.on('error', reject);
  });
}

function readSerial(socket: string, text: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = createConnection({ path: socket });
    const timer = setTimeout(() => {
      s.destroy();
      reject(
        new Error(
          `serial console: no ${JSON.stringify(text)} within ${timeoutMs} ms; got ${JSON.stringify(out.slice(-500))}`,
        ),
      );
    }, timeoutMs);
    s.on('data', (buffer: Buffer) => {
      out += buffer.toString('utf8');
      const at = out.indexOf(text);
      // The whole line: the rest of it may come in a later chunk.
      if (at >= 0 && out.indexOf('\n', at) >= 0) {
        clearTimeout(timer);
        s.destroy();
        resolve(out);
      }
    });
    s.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/**
 * Pids of the processes whose command line names root: the launcher's libvirtd, virtlogd and QEMU (the
 * launcher itself, which has `--root`, is left out).
 */
export function processesUnder(root: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.includes(root)) && !argv.includes('--root')) out.push(pid);
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * Serves `listen` and pipes every connection to `to`: the two handlers' migration proxies in one process
 * (source Pod's `<uid>-source.sock` to the target's libvirt socket). `close()` stops it.
 */
export async function startRelay(listen: string, to: string): Promise<{ close: () => Promise<void> }> {
  mkdirSync(dirname(listen), { recursive: true });
  rmSync(listen, { force: true });
  const server = createServer((client: Socket) => {
    const upstream = createConnection({ path: to });
    client.pipe(upstream).pipe(client);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen, resolve);
  });
  // The daemons' user connects to it (KubeVirt's proxy hands its sockets to QEMU's user).
  chmodSync(listen, 0o666);
  return {
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
