/**
 * The device plugins over real gRPC on unix sockets in a temp dir, with a fake kubelet (Registration) and
 * device "nodes" that are plain files the test removes and puts back.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { memoryLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import type { Device } from './kubelet-api.ts';
import { DevicePluginTestClient, startFakeKubelet, type FakeKubelet } from './testing/kubelet.ts';
import { tempRoot, type TempRoot } from '../../rpc/testing/servers.ts';
import { startDevicePlugins, type RunningDevicePlugins } from './start.ts';

const P = 'devices.virtualization.deckhouse.io/';
const RESOURCES = [`${P}kvm`, `${P}tun`, `${P}vhost-net`, `${P}pr-helper`];

let root: TempRoot;
let dp: string;
let devs: { kvm: string; tun: string; vhostNet: string };
let kubelet: FakeKubelet;
let plugins: RunningDevicePlugins | undefined;
let clients: DevicePluginTestClient[];
let logs: ReturnType<typeof memoryLogger>;

async function start(): Promise<RunningDevicePlugins> {
  plugins = await startDevicePlugins({
    root: root.dir,
    devicePluginsDir: dp,
    devices: devs,
    permissions: 'rw',
    log: logs.log,
    pollMs: 100,
    backoffMs: [50, 100],
  });
  return plugins;
}

function client(endpoint: string): DevicePluginTestClient {
  const c = new DevicePluginTestClient(path.join(dp, endpoint));
  clients.push(c);
  return c;
}

const healthOf = (devices: Device[] | undefined): string[] => [
  ...new Set((devices ?? []).map((d) => d.health)),
];

const registered = (k: FakeKubelet, n: number): Promise<true> =>
  waitFor(() => k.registrations.length >= n, `${n} registrations`, { timeoutMs: 10_000 });

beforeEach(async () => {
  root = await tempRoot();
  dp = path.join(root.dir, 'dp');
  devs = {
    kvm: path.join(root.dir, 'dev/kvm'),
    tun: path.join(root.dir, 'dev/net/tun'),
    vhostNet: path.join(root.dir, 'dev/vhost-net'),
  };
  await mkdir(path.join(root.dir, 'dev/net'), { recursive: true });
  for (const p of Object.values(devs)) await writeFile(p, '');
  kubelet = await startFakeKubelet(dp);
  clients = [];
  logs = memoryLogger();
});

afterEach(async () => {
  for (const c of clients) c.close();
  await plugins?.close();
  plugins = undefined;
  await kubelet.stop();
  await root.cleanup();
});

describe('startDevicePlugins', () => {
  it('registers kvm, tun, vhost-net and pr-helper with the kubelet, each on its own socket', async () => {
    const p = await start();
    await registered(kubelet, 4);
    expect(kubelet.registrations.map((r) => r.resourceName).sort()).toEqual([...RESOURCES].sort());
    for (const r of kubelet.registrations) {
      expect(r.version).toBe('v1beta1');
      expect(r.endpoint).toBe(`kubevirt-${r.resourceName.slice(P.length)}.sock`);
      expect(existsSync(path.join(dp, r.endpoint))).toBe(true);
    }
    await waitFor(() => p.ready(), 'ready');
    expect(logs.lines.filter((l) => l['msg'] === 'device plugin registered')).toHaveLength(4);
    const opts = await client('kubevirt-kvm.sock').options();
    expect(opts).toEqual({ preStartRequired: false, getPreferredAllocationAvailable: false });
  });

  it('lists 1000 devices and flips their health when the device node disappears and comes back', async () => {
    await start();
    await registered(kubelet, 4);
    const stream = client('kubevirt-kvm.sock').listAndWatch();
    const first = await stream.next();
    expect(first?.devices).toHaveLength(1000);
    expect(first?.devices[0]?.ID).toBe('kvm0');
    expect(first?.devices[999]?.ID).toBe('kvm999');
    expect(healthOf(first?.devices)).toEqual(['Healthy']);

    await rm(devs.kvm);
    const gone = await stream.next();
    expect(gone?.devices).toHaveLength(1000);
    expect(healthOf(gone?.devices)).toEqual(['Unhealthy']);

    await writeFile(devs.kvm, '');
    expect(healthOf((await stream.next())?.devices)).toEqual(['Healthy']);
    const changes = logs.lines.filter(
      (l) => l['msg'] === 'device health changed' && l['resource'] === `${P}kvm`,
    );
    expect(changes.map((l) => l['health'])).toEqual(['Unhealthy', 'Healthy']);
  });

  it('advertises an absent device as unhealthy from the start, and the pr-helper until its socket exists', async () => {
    await rm(devs.vhostNet);
    await start();
    await registered(kubelet, 4);
    expect(healthOf((await client('kubevirt-vhost-net.sock').listAndWatch().next())?.devices)).toEqual([
      'Unhealthy',
    ]);
    const pr = client('kubevirt-pr-helper.sock').listAndWatch();
    expect(healthOf((await pr.next())?.devices)).toEqual(['Unhealthy']);
    await writeFile(path.join(root.dir, 'var/run/kubevirt/daemons/pr/pr-helper.sock'), '');
    expect(healthOf((await pr.next())?.devices)).toEqual(['Healthy']);
  });

  it('notices a device whose parent dir did not exist at start (the poll arms the watch later)', async () => {
    await rm(path.join(root.dir, 'dev/net'), { recursive: true });
    await start();
    await registered(kubelet, 4);
    const stream = client('kubevirt-tun.sock').listAndWatch();
    expect(healthOf((await stream.next())?.devices)).toEqual(['Unhealthy']);
    await mkdir(path.join(root.dir, 'dev/net'));
    await writeFile(devs.tun, '');
    expect(healthOf((await stream.next())?.devices)).toEqual(['Healthy']);
    await rm(devs.tun);
    expect(healthOf((await stream.next())?.devices)).toEqual(['Unhealthy']);
  });

  it('Allocate grants the device node per container, and the pr-helper socket dir as a mount', async () => {
    await start();
    await registered(kubelet, 4);
    const tun = await client('kubevirt-tun.sock').allocate({
      containerRequests: [{ devicesIds: ['tun0'] }, { devicesIds: ['tun1'] }],
    });
    expect(tun.containerResponses).toHaveLength(2);
    for (const r of tun.containerResponses) {
      expect(r.devices).toEqual([{ hostPath: devs.tun, containerPath: '/dev/net/tun', permissions: 'rw' }]);
      expect(r.mounts).toEqual([]);
    }
    const pr = await client('kubevirt-pr-helper.sock').allocate({
      containerRequests: [{ devicesIds: ['pr-helper7'] }],
    });
    expect(pr.containerResponses[0]?.mounts).toEqual([
      {
        hostPath: path.join(root.dir, 'var/run/kubevirt/daemons/pr'),
        containerPath: '/var/run/kubevirt/daemons/pr',
        readOnly: false,
      },
    ]);
    expect(pr.containerResponses[0]?.devices).toEqual([]);
  });

  it('registers again after a kubelet restart (its sockets removed, a new kubelet.sock)', async () => {
    const p = await start();
    await registered(kubelet, 4);
    await waitFor(() => p.ready(), 'ready');
    // What a kubelet restart does: it goes away, its device manager empties the dir, then serves again.
    await kubelet.stop();
    for (const r of RESOURCES) await rm(path.join(dp, `kubevirt-${r.slice(P.length)}.sock`), { force: true });
    await rm(path.join(dp, 'kubelet.sock'), { force: true });
    await waitFor(() => !p.ready(), 'not ready while the kubelet is away', { timeoutMs: 10_000 });
    kubelet = await startFakeKubelet(dp);
    await registered(kubelet, 4);
    expect(kubelet.registrations.map((r) => r.resourceName).sort()).toEqual([...RESOURCES].sort());
    await waitFor(() => p.ready(), 'ready again');
    const list = await client('kubevirt-tun.sock').listAndWatch().next();
    expect(list?.devices).toHaveLength(1000);
  });

  it('registers again when only kubelet.sock is replaced', async () => {
    await start();
    await registered(kubelet, 4);
    await kubelet.stop();
    await rm(path.join(dp, 'kubelet.sock'), { force: true });
    kubelet = await startFakeKubelet(dp);
    await registered(kubelet, 4);
    expect(new Set(kubelet.registrations.map((r) => r.resourceName))).toEqual(new Set(RESOURCES));
  });

  it('retries until the kubelet is there', async () => {
    await kubelet.stop();
    await rm(path.join(dp, 'kubelet.sock'), { force: true });
    const p = await start();
    await waitFor(
      () => logs.lines.filter((l) => l['msg'] === 'device plugin registration failed').length >= 4,
      'failed attempts',
    );
    expect(p.ready()).toBe(false);
    kubelet = await startFakeKubelet(dp);
    await registered(kubelet, 4);
    await waitFor(() => p.ready(), 'ready');
  });

  it('on close, open streams get an empty list and the sockets go', async () => {
    const p = await start();
    await registered(kubelet, 4);
    const stream = client('kubevirt-kvm.sock').listAndWatch();
    expect((await stream.next())?.devices).toHaveLength(1000);
    await p.close();
    plugins = undefined;
    expect((await stream.next())?.devices).toEqual([]);
    expect(p.ready()).toBe(false);
    for (const r of RESOURCES)
      expect(existsSync(path.join(dp, `kubevirt-${r.slice(P.length)}.sock`))).toBe(false);
  });
});
