/**
 * One device plugin's life (kubevirt pkg/virt-handler/device-manager generic_device.go, socket_device.go,
 * device_controller.go controlledDevice): serve DevicePlugin on `<device-plugins>/<endpoint>`, Register with
 * the kubelet, then watch. Health is whether the spec's path exists; every change goes to each open
 * ListAndWatch stream as the full list. The plugin serves and registers again when its socket is removed or
 * kubelet.sock is replaced (a kubelet restart deletes the dir's sockets and makes a new kubelet.sock), and
 * after a failed start, with KubeVirt's backoff (1, 2, 5, 10 s), cut short when a new kubelet.sock appears.
 * On stop the streams get an empty list first, as KubeVirt's do, so the kubelet drops the devices quickly.
 */
import type { Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import type { Server } from '@grpc/grpc-js';
import type { Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';
import {
  DEVICE_PLUGIN_VERSION,
  KUBELET_SOCKET,
  newDevicePluginServer,
  registerWithKubelet,
  type AllocateResponse,
  type DevicePluginHandlers,
  type ListAndWatchResponse,
} from './kubelet-api.ts';
import { openBeneath, withHandle } from '../../kernel/safepath/index.ts';
import { listenUnix, shutdownServer } from '../../rpc/listen.ts';
import { allocateResponse, deviceList, healthOf, type DevicePluginSpec } from './specs.ts';
import { watchDirs } from './watch.ts';

export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000];

export interface DevicePluginOptions {
  readonly spec: DevicePluginSpec;
  /** The kubelet's device-plugins dir as this process sees it. */
  readonly dir: string;
  readonly maxDevices: number;
  readonly clock: Clock;
  readonly log: Logger;
  /** Poll period of the health and kubelet checks (fs.watch makes most changes immediate). */
  readonly pollMs: number;
  readonly backoffMs: readonly number[];
  readonly registerDeadlineMs: number;
}

/** dev:ino:birth of a path, or undefined when it is missing: a replaced file gets a new identity. */
const idOf = (s: Stats): string => `${s.dev}:${s.ino}:${s.birthtimeMs}`;

async function identity(p: string): Promise<string | undefined> {
  try {
    return idOf(await lstat(p));
  } catch {
    return undefined;
  }
}

/** Read through a call: the flag changes while the caller awaits. */
const isAborted = (s: AbortSignal): boolean => s.aborted;

const exists = async (p: string): Promise<boolean> => (await identity(p)) !== undefined;

/** Opens and closes a device node, which makes the kernel load its module (tun, vhost-net); errors ignored. */
async function touchDevice(p: string): Promise<void> {
  try {
    await (await open(p, 'r')).close();
  } catch {
    // Absent or not openable: the health check says so.
  }
}

/** Resolves when any of the signals aborts. */
function anyAborted(...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((s) => s.aborted)) {
      resolve();
      return;
    }
    for (const s of signals) {
      s.addEventListener(
        'abort',
        () => {
          resolve();
        },
        { once: true },
      );
    }
  });
}

export class DevicePlugin {
  private readonly o: DevicePluginOptions;
  private readonly log: Logger;
  private readonly socket: string;
  private readonly kubeletSocket: string;
  private healthy = false;
  private registeredNow = false;
  private readonly streams = new Set<(r: ListAndWatchResponse) => void>();
  /** Aborts when the current server stops: its streams end. */
  private generation = new AbortController();
  private server: Server | undefined;
  private socketId: string | undefined;
  private kubeletId: string | undefined;
  private wakers: (() => void)[] = [];
  private checking = false;
  private checkAgain = false;

  constructor(o: DevicePluginOptions) {
    this.o = o;
    this.log = o.log.with({ resource: o.spec.resourceName });
    this.socket = path.join(o.dir, o.spec.endpoint);
    this.kubeletSocket = path.join(o.dir, KUBELET_SOCKET);
  }

  registered(): boolean {
    return this.registeredNow;
  }

  /** Serves, registers and re-registers until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const watch = watchDirs({
      dirs: [path.dirname(this.o.spec.healthPath), this.o.dir],
      pollMs: this.o.pollMs,
      clock: this.o.clock,
      log: this.log,
      onChange: () => {
        this.changed();
      },
    });
    const wake = (): void => {
      this.wakeAll();
    };
    signal.addEventListener('abort', wake, { once: true });
    try {
      this.healthy = await exists(this.o.spec.healthPath);
      if (!this.healthy) this.log.warning('device is not present', { path: this.o.spec.healthPath });
      await this.loop(signal);
    } finally {
      watch.close();
      signal.removeEventListener('abort', wake);
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.serve();
        failures = 0;
        await this.untilRestart(signal);
      } catch (err) {
        failures++;
        if (!isAborted(signal)) {
          this.log.warning('device plugin registration failed', { reason: err, attempt: failures });
        }
      }
      await this.stopServing();
      if (failures > 0 && !isAborted(signal)) await this.backoff(failures, signal);
    }
  }

  private handlers(): DevicePluginHandlers {
    return {
      getDevicePluginOptions: () =>
        Promise.resolve({ preStartRequired: false, getPreferredAllocationAvailable: false }),
      preStartContainer: () => Promise.resolve({}),
      allocate: (req): Promise<AllocateResponse> => {
        this.log.v(2).info('allocate', { containers: req.containerRequests.map((c) => c.devicesIds) });
        return Promise.resolve(allocateResponse(this.o.spec, req));
      },
      listAndWatch: (send, signal) => this.listAndWatch(send, signal),
    };
  }

  private async listAndWatch(send: (r: ListAndWatchResponse) => void, kubelet: AbortSignal): Promise<void> {
    const stopped = this.generation.signal;
    send(this.list());
    this.streams.add(send);
    try {
      await anyAborted(kubelet, stopped);
    } finally {
      this.streams.delete(send);
    }
    if (!kubelet.aborted) send({ devices: [] });
  }

  private list(): ListAndWatchResponse {
    return { devices: deviceList(this.o.spec.name, this.o.maxDevices, healthOf(this.healthy)) };
  }

  private async serve(): Promise<void> {
    if (this.o.spec.preOpen) await touchDevice(this.o.spec.healthPath);
    this.generation = new AbortController();
    this.server = newDevicePluginServer(this.handlers());
    await listenUnix(this.server, this.socket);
    this.socketId = await identity(this.socket);
    // Registered through the kubelet.sock opened here, so the identity kept is the one registered with: a
    // kubelet restart swaps the socket, and one read by path before the dial may be the old one, which would
    // make the plugin register twice at once (the kubelet then refuses it as already connected for good).
    await withHandle(openBeneath(this.o.dir, [KUBELET_SOCKET], ['socket']), async (kubelet) => {
      this.kubeletId = idOf(kubelet.stat);
      await registerWithKubelet(
        kubelet.procPath,
        {
          version: DEVICE_PLUGIN_VERSION,
          endpoint: this.o.spec.endpoint,
          resourceName: this.o.spec.resourceName,
          options: undefined,
        },
        { deadlineMs: this.o.registerDeadlineMs, clock: this.o.clock },
      );
    });
    this.registeredNow = true;
    this.log.info('device plugin registered', {
      endpoint: this.o.spec.endpoint,
      health: healthOf(this.healthy),
      devices: this.o.maxDevices,
    });
  }

  /** Why the plugin must serve and register again, or undefined while all is well. */
  private async restartCause(): Promise<string | undefined> {
    if ((await identity(this.socket)) !== this.socketId) return 'plugin socket removed';
    if ((await identity(this.kubeletSocket)) !== this.kubeletId) return 'kubelet socket replaced';
    return undefined;
  }

  private async untilRestart(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const cause = await this.restartCause();
      if (cause !== undefined) {
        this.log.info('device plugin registering again', { cause });
        return;
      }
      await this.nap();
    }
  }

  private async stopServing(): Promise<void> {
    const was = this.registeredNow;
    this.registeredNow = false;
    this.generation.abort();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await shutdownServer(server, 1_000, this.o.clock);
    if (was) this.log.info('device plugin stopped', { endpoint: this.o.spec.endpoint });
  }

  /** Waits out the backoff step for `failures`, or less once a kubelet.sock other than the last one appears. */
  private async backoff(failures: number, signal: AbortSignal): Promise<void> {
    const steps = this.o.backoffMs;
    const ms = steps[Math.min(failures, steps.length) - 1] ?? 1_000;
    const last = this.kubeletId;
    const until = this.o.clock.now() + ms;
    const timer = this.o.clock.after(ms, () => {
      this.wakeAll();
    });
    try {
      while (!isAborted(signal) && this.o.clock.now() < until) {
        await this.nap();
        const now = await identity(this.kubeletSocket);
        if (now !== undefined && now !== last) return;
      }
    } finally {
      timer.cancel();
    }
  }

  /** Resolves at the next change in a watched dir (or poll tick), or when the run's signal aborts. */
  private nap(): Promise<void> {
    return new Promise((resolve) => {
      this.wakers.push(resolve);
    });
  }

  private wakeAll(): void {
    for (const w of this.wakers.splice(0)) w();
  }

  private changed(): void {
    this.wakeAll();
    void this.recheckHealth();
  }

  private recheckPending(): boolean {
    return this.checkAgain;
  }

  private async recheckHealth(): Promise<void> {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    try {
      do {
        this.checkAgain = false;
        const now = await exists(this.o.spec.healthPath);
        if (now === this.healthy) continue;
        this.healthy = now;
        this.log.info('device health changed', { path: this.o.spec.healthPath, health: healthOf(now) });
        const list = this.list();
        for (const send of this.streams) send(list);
      } while (this.recheckPending());
    } finally {
      this.checking = false;
    }
  }
}
