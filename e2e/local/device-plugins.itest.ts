/**
 * The handler's device plugins with the REAL kubelet of the local cluster (node `local`), run in this process
 * as root, as the handler's privileged Pod would, on the kubelet's hard-coded /var/lib/kubelet/device-plugins:
 * - Node capacity shows devices.virtualization.deckhouse.io/{kvm,tun,vhost-net,pr-helper}, 1000 each, and
 *   allocatable counts only the healthy ones (a device node missing on this host, the pr-helper socket absent);
 * - a Pod that requests one tun (or kvm) is admitted and sees the device node, a Pod without the request does
 *   not;
 * - after a kubelet restart the plugins register again and a Pod that requests tun is admitted again.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  KVM_DEVICE,
  PR_HELPER_DEVICE,
  TUN_DEVICE,
  VHOST_NET_DEVICE,
} from '../../lib/kubevirt/device-resources.ts';
import { parseQuantity } from '../../lib/kubevirt/index.ts';
import { startDevicePlugins, type RunningDevicePlugins } from '../../lib/handler/device-plugins/start.ts';
import { memoryLogger } from '../../lib/kernel/log/log.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { newNamespaceName } from '../../testenv/handle.ts';
import { restartKubelet } from './cluster.ts';
import type { Obj } from './kube.ts';
import { IMAGES, NODE_NAME } from './layout.ts';
import { useLocalCluster, type TestCluster } from './testing/cluster.ts';
import { createNamespace, createPod, deleteNamespace, logs, waitSucceeded } from './testing/pods.ts';

const RESOURCES = [KVM_DEVICE, TUN_DEVICE, VHOST_NET_DEVICE, PR_HELPER_DEVICE];

let c: TestCluster;
let ns: string;
let plugins: RunningDevicePlugins;
const logged = memoryLogger('handler');

interface NodeDoc extends Obj {
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

beforeAll(async () => {
  c = await useLocalCluster();
  ns = newNamespaceName('device-plugins');
  await createNamespace(c.api, ns);
  plugins = await startDevicePlugins({
    root: join(c.dir, 'device-plugins-test'),
    devicePluginsDir: '/var/lib/kubelet/device-plugins',
    log: logged.log,
    pollMs: 500,
  });
}, 1_200_000);

afterAll(async () => {
  await deleteNamespace(c.api, ns).catch(() => undefined);
  await plugins.close();
  await rm(join(c.dir, 'device-plugins-test'), { recursive: true, force: true });
  await c.release();
}, 300_000);

const node = (): Promise<NodeDoc> => c.api.get<NodeDoc>(`/api/v1/nodes/${NODE_NAME}`);

/** Capacity and allocatable of each resource as numbers (the API prints 1000 as "1k"). */
async function counts(): Promise<{ capacity: Record<string, number>; allocatable: Record<string, number> }> {
  const st = (await node()).status;
  const of = (list: Record<string, string> | undefined): Record<string, number> =>
    Object.fromEntries(RESOURCES.map((r) => [r, parseQuantity(list?.[r] ?? '0')]));
  return { capacity: of(st?.capacity), allocatable: of(st?.allocatable) };
}

const registrations = (): number =>
  logged.lines.filter((l) => l['msg'] === 'device plugin registered').length;

/** A Pod that prints whether `dev` is a char device in its container, with `limits` as its resources. */
function probePod(name: string, dev: string, limits: Record<string, string>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'probe',
          image: IMAGES.virt,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', `if test -c ${dev}; then echo DEVICE-PRESENT; else echo DEVICE-MISSING; fi`],
          resources: { limits },
        },
      ],
    },
  };
}

async function probe(name: string, dev: string, limits: Record<string, string>): Promise<string> {
  await createPod(c.api, ns, probePod(name, dev, limits));
  await waitSucceeded(c.api, ns, name);
  return logs(c.api, ns, name);
}

describe('device plugins on node local', () => {
  it('registers every plugin: the Node advertises 1000 of each, allocatable where healthy', async () => {
    await waitFor(() => plugins.ready(), 'all plugins registered', { timeoutMs: 60_000 });
    const want = (present: boolean): number => (present ? 1000 : 0);
    const expected: Record<string, number> = {
      [KVM_DEVICE]: want(existsSync('/dev/kvm')),
      [TUN_DEVICE]: want(existsSync('/dev/net/tun')),
      [VHOST_NET_DEVICE]: want(existsSync('/dev/vhost-net')),
      [PR_HELPER_DEVICE]: 0,
    };
    const got = await waitFor(
      async () => {
        const n = await counts();
        return RESOURCES.every((r) => n.capacity[r] === 1000 && n.allocatable[r] === expected[r]) && n;
      },
      () => `Node capacity 1000 and allocatable ${JSON.stringify(expected)}`,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(got.capacity).toEqual(Object.fromEntries(RESOURCES.map((r) => [r, 1000])));
    expect(got.allocatable).toEqual(expected);
  }, 120_000);

  it('a Pod that requests one tun is admitted and sees /dev/net/tun; one without the request does not', async () => {
    expect(await probe('with-tun', '/dev/net/tun', { [TUN_DEVICE]: '1' })).toContain('DEVICE-PRESENT');
    expect(await probe('without-tun', '/dev/net/tun', {})).toContain('DEVICE-MISSING');
  }, 180_000);

  it('a Pod that requests kvm sees /dev/kvm', async () => {
    expect(await probe('with-kvm', '/dev/kvm', { [KVM_DEVICE]: '1' })).toContain('DEVICE-PRESENT');
  }, 180_000);

  it('registers again after a kubelet restart, and tun is allocatable again', async () => {
    const before = registrations();
    await restartKubelet(c.dir);
    await waitFor(() => registrations() >= before + RESOURCES.length && plugins.ready(), 'registered again', {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const causes = logged.lines
      .filter((l) => l['msg'] === 'device plugin registering again')
      .map((l) => l['cause']);
    expect(causes.length).toBeGreaterThanOrEqual(RESOURCES.length);
    await waitFor(
      async () => (await counts()).allocatable[TUN_DEVICE] === 1000,
      'tun allocatable after the restart',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(await probe('tun-after-restart', '/dev/net/tun', { [TUN_DEVICE]: '1' })).toContain(
      'DEVICE-PRESENT',
    );
  }, 300_000);
});
