/**
 * Kubernetes' DRA test driver as a kubelet plugin of the local cluster's node, for tests of the real DRA path:
 * the scheduler allocates a claim from the ResourceSlice it publishes, the kubelet prepares the claim through
 * its plugin socket, and containerd applies the CDI spec it wrote to the cluster's CDI dir. It runs as a child
 * of the test process with the admin kubeconfig (so it needs no RBAC of its own) and is stopped by PID;
 * stop() removes what it and start made: the DeviceClass, its ResourceSlices, its CDI specs and sockets.
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage, KvError } from '../../lib/kernel/errors/errors.ts';
import { spawnProcess, stopChild, type ChildHandle } from '../../lib/kernel/process/spawn.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { runCacheBuild } from '../../testenv/cache-build.ts';
import { waitUntilReady } from '../../testenv/ready.ts';
import {
  deviceClass,
  draDriverArgs,
  driverPaths,
  isDriverCdiSpec,
  registrationSucceeded,
  RESOURCE_API,
  slicesPath,
  TEST_DRIVER,
} from './dra-objects.ts';
import type { Api, List, Obj } from './kube.ts';
import { layout, NODE_NAME } from './layout.ts';

const BUILD_SCRIPT = fileURLToPath(new URL('../../testenv/build.sh', import.meta.url));

export interface DraDriverOptions {
  /** The local cluster's stack dir (TestCluster.dir). */
  readonly dir: string;
  /** The admin kubeconfig (TestCluster.kubeconfig). */
  readonly kubeconfig: string;
  readonly api: Api;
  /** The DeviceClass start makes: name it `kvts-…` so a leftover one fails the test file. */
  readonly deviceClassName: string;
  /** Devices published on the node (device-00, device-01, …); default 2. */
  readonly numDevices?: number;
  readonly driverName?: string;
  /** For registration and the ResourceSlice once the binary is built; default 2 minutes. */
  readonly timeoutMs?: number;
}

export interface RunningDraDriver {
  readonly driverName: string;
  readonly deviceClassName: string;
  readonly pid: number;
  /** Where the driver writes a prepared claim's CDI spec (containerd's cdi_spec_dirs). */
  readonly cdiDir: string;
  readonly logFile: string;
  /** Stops the driver by PID and removes the DeviceClass, its ResourceSlices, CDI specs and sockets. */
  stop(): Promise<void>;
}

interface SliceDoc extends Obj {
  spec?: { devices?: unknown[] };
}

/** The driver's binary from the pinned module (testenv/build.sh dra: cached by the module's hash). */
async function draDriverBinary(): Promise<string> {
  return join(await runCacheBuild(BUILD_SCRIPT, ['dra']), 'bin', 'dra-test-driver');
}

export async function startDraDriver(o: DraDriverOptions): Promise<RunningDraDriver> {
  const L = layout(o.dir);
  const driverName = o.driverName ?? TEST_DRIVER;
  const numDevices = o.numDevices ?? 2;
  const timeoutMs = o.timeoutMs ?? 120_000;
  const bin = await draDriverBinary();
  const where = { api: o.api, driverName, kubeletRoot: L.kubelet.root, cdiDir: L.containerd.cdi };
  // A driver of an earlier run that was killed leaves its sockets, specs and slices: they go first.
  await removeDriverTraces(where);
  // The driver makes the parent of its socket dir (--datadir) but not the dir itself.
  await mkdir(driverPaths(L.kubelet.root, driverName).pluginDir, { recursive: true, mode: 0o750 });
  const logFile = join(L.logs, 'dra-test-driver.log');
  const from = (await stat(logFile).catch(() => undefined))?.size ?? 0;
  const args = draDriverArgs({
    kubeconfig: o.kubeconfig,
    driverName,
    nodeName: NODE_NAME,
    kubeletRoot: L.kubelet.root,
    cdiDir: L.containerd.cdi,
    numDevices,
  });
  // The driver prefers KUBECONFIG to its --kubeconfig flag, and a test process has the testenv's in KUBECONFIG.
  const env = { ...process.env, KUBECONFIG: o.kubeconfig };
  const child = await spawnProcess({ bin, args, log: logFile, env });
  const stop = async (): Promise<void> => {
    await stopDriver(child, { ...where, deviceClassName: o.deviceClassName });
  };
  try {
    const published = async (): Promise<boolean> => {
      const log = (await readFile(logFile)).subarray(from).toString('utf8');
      if (!registrationSucceeded(log)) return false;
      const slices = (await o.api.get<List<SliceDoc>>(slicesPath(driverName, NODE_NAME))).items;
      return slices.reduce((n, s) => n + (s.spec?.devices?.length ?? 0), 0) === numDevices;
    };
    await waitUntilReady(published, {
      what: `${driverName} registered with the kubelet and its ResourceSlice published`,
      pid: child.pid,
      bin,
      logFile,
      timeoutMs,
    });
    await o.api.create(`${RESOURCE_API}/deviceclasses`, deviceClass(o.deviceClassName, driverName));
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return {
    driverName,
    deviceClassName: o.deviceClassName,
    pid: child.pid,
    cdiDir: L.containerd.cdi,
    logFile,
    stop,
  };
}

interface Traces {
  readonly api: Api;
  readonly driverName: string;
  readonly kubeletRoot: string;
  readonly cdiDir: string;
}

/** DeviceClass first (no new claim of it), then the process, then what it leaves; every step is tried. */
async function stopDriver(child: ChildHandle, t: Traces & { deviceClassName: string }): Promise<void> {
  const errors: unknown[] = [];
  const attempt = async (step: () => Promise<unknown>): Promise<void> => {
    await step().catch((err: unknown) => errors.push(err));
  };
  await attempt(() => t.api.remove(`${RESOURCE_API}/deviceclasses/${t.deviceClassName}`));
  await attempt(() => stopChild(child, 10_000));
  await attempt(() => removeDriverTraces(t));
  if (errors.length > 0) {
    const why = errors.map(errorMessage).join('; ');
    throw new KvError('KV_ERR_INTERNAL', `stopping ${t.driverName}: ${why}`, { cause: errors[0] });
  }
}

/** The driver's ResourceSlices on the node (gone, not only deleted), its claims' CDI specs, its sockets. */
async function removeDriverTraces(t: Traces): Promise<void> {
  const slices = slicesPath(t.driverName, NODE_NAME);
  await t.api.remove(slices);
  await waitFor(
    async () => (await t.api.get<List>(slices)).items.length === 0,
    `${t.driverName}'s ResourceSlices gone`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const specs = (await readdir(t.cdiDir).catch(() => [])).filter((f) => isDriverCdiSpec(f, t.driverName));
  const p = driverPaths(t.kubeletRoot, t.driverName);
  const paths = [...specs.map((f) => join(t.cdiDir, f)), p.registrationSocket, p.pluginDir];
  await Promise.all(paths.map((path) => rm(path, { recursive: true, force: true })));
}
