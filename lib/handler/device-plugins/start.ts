/**
 * The handler's device plugins, wired (kubevirt pkg/virt-handler/device-manager DeviceController with its
 * permanent plugins, plus the pr-helper socket plugin): kvm, tun, vhost-net and pr-helper, each serving on its
 * own socket in the kubelet's device-plugins dir and registered with the kubelet. ready() is true while every
 * plugin is registered; close() stops them (their streams get an empty list, their sockets go).
 */
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { realClock, type Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { DEVICE_PLUGINS_DIR } from './kubelet-api.ts';
import { podLayout } from '../../rpc/index.ts';
import { DEFAULT_BACKOFF_MS, DevicePlugin } from './plugin.ts';
import {
  DEFAULT_MAX_DEVICES,
  DEVICE_NODES,
  devicePermissions,
  devicePluginSpecs,
  type DevicePaths,
} from './specs.ts';

export interface DevicePluginsOptions {
  /** Prefix of the handler's paths ('/' on a node): the pr-helper socket dir, the default device-plugins dir. */
  readonly root: string;
  /** The kubelet's device-plugins dir; default `<root>/var/lib/kubelet/device-plugins`. */
  readonly devicePluginsDir?: string;
  /** Host device nodes as this process sees them; default /dev/kvm, /dev/net/tun, /dev/vhost-net. */
  readonly devices?: Partial<DevicePaths>;
  /** Devices each plugin advertises (KubeVirt's --max-devices); default 1000. */
  readonly maxDevices?: number;
  /** Device cgroup permissions; default "rw", "rwm" on a cgroup v2 host. */
  readonly permissions?: string;
  /** Whether to run the pr-helper socket plugin; default true. */
  readonly prHelper?: boolean;
  readonly log: Logger;
  readonly clock?: Clock;
  /** Poll period of the health and kubelet checks; default 2 s. */
  readonly pollMs?: number;
  readonly backoffMs?: readonly number[];
  /** Deadline of Register; default 5 s. */
  readonly registerDeadlineMs?: number;
}

export interface RunningDevicePlugins {
  /** Every plugin is registered with the kubelet. */
  ready(): boolean;
  close(): Promise<void>;
}

async function isCgroupV2(): Promise<boolean> {
  try {
    await access('/sys/fs/cgroup/cgroup.controllers');
    return true;
  } catch {
    return false;
  }
}

/** Starts the plugins and returns at once; they register in the background and retry until close(). */
export async function startDevicePlugins(o: DevicePluginsOptions): Promise<RunningDevicePlugins> {
  const log = o.log.with({ subcomponent: 'device-plugins' });
  const dir = o.devicePluginsDir ?? path.join(o.root, DEVICE_PLUGINS_DIR);
  const prHelperDir = {
    hostDir: path.dirname(podLayout(o.root).prHelperSocket),
    containerDir: path.dirname(podLayout('/').prHelperSocket),
  };
  // The kubelet bind-mounts the dir into launchers that get the resource: it must exist before the
  // pr-helper creates its socket in it.
  if (o.prHelper !== false) await mkdir(prHelperDir.hostDir, { recursive: true });
  const specs = devicePluginSpecs({
    devices: { ...DEVICE_NODES, ...o.devices },
    permissions: o.permissions ?? devicePermissions(await isCgroupV2()),
    ...(o.prHelper !== false && { prHelper: prHelperDir }),
  });
  const plugins = specs.map(
    (spec) =>
      new DevicePlugin({
        spec,
        dir,
        maxDevices: o.maxDevices ?? DEFAULT_MAX_DEVICES,
        clock: o.clock ?? realClock,
        log,
        pollMs: o.pollMs ?? 2_000,
        backoffMs: o.backoffMs ?? DEFAULT_BACKOFF_MS,
        registerDeadlineMs: o.registerDeadlineMs ?? 5_000,
      }),
  );
  const stop = new AbortController();
  const runs = plugins.map((p) => p.run(stop.signal));
  log.info('device plugins started', { dir, resources: specs.map((s) => s.resourceName) });
  return {
    ready: () => plugins.every((p) => p.registered()),
    close: async (): Promise<void> => {
      stop.abort();
      await Promise.all(runs);
    },
  };
}
