/**
 * Dynamic resource allocation through the real path on node `local`, with Kubernetes' own DRA test driver as
 * the kubelet plugin (dra-driver.ts):
 * - the driver registers with the kubelet and publishes its devices in a ResourceSlice of the node;
 * - a Pod with a claim from a ResourceClaimTemplate of the driver's DeviceClass is scheduled, the scheduler
 *   allocates the claim (status.allocation.devices.results) and reserves it for the Pod, the kubelet has the
 *   driver prepare it, and the container sees the variables of the CDI spec the driver wrote;
 * - once the Pod is gone the claim is deleted and unprepared (its CDI spec removed).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { newNamespaceName } from '../../testenv/handle.ts';
import { startDraDriver, type RunningDraDriver } from './dra-driver.ts';
import { cdiSpecFile, claimEnv, RESOURCE_API, slicesPath } from './dra-objects.ts';
import type { List, Obj } from './kube.ts';
import { NODE_NAME } from './layout.ts';
import { useLocalCluster, type TestCluster } from './testing/cluster.ts';
import { claimPath, claimPod, createClaimTemplate, podClaimName, type ClaimDoc } from './testing/dra.ts';
import { createNamespace, createPod, logs, podPath, waitReady } from './testing/pods.ts';

let c: TestCluster;
let ns: string;
let driver: RunningDraDriver | undefined;

beforeAll(async () => {
  c = await useLocalCluster();
  ns = newNamespaceName('dra');
  await createNamespace(c.api, ns);
  driver = await startDraDriver({
    dir: c.dir,
    kubeconfig: c.kubeconfig,
    api: c.api,
    deviceClassName: `kvts-${ns}`,
    numDevices: 2,
  });
}, 1_200_000);

afterAll(async () => {
  // The namespace's Pods go while the driver still runs: the kubelet needs it to unprepare their claims.
  await c.api.remove(`/api/v1/namespaces/${ns}`).catch(() => undefined);
  await waitFor(
    async () => (await c.api.find(`/api/v1/namespaces/${ns}`)) === undefined,
    `namespace ${ns} gone`,
    { timeoutMs: 120_000, intervalMs: 500 },
  ).catch(() => undefined);
  await driver?.stop();
  await c.release();
}, 300_000);

const the = (): RunningDraDriver => {
  if (driver === undefined) throw new Error('the DRA driver did not start');
  return driver;
};

interface SliceDoc extends Obj {
  spec?: { driver?: string; nodeName?: string; pool?: { name?: string }; devices?: { name?: string }[] };
}

describe('DRA with the test driver on node local', () => {
  it('publishes its devices in a ResourceSlice of the node', async () => {
    const slices = (await c.api.get<List<SliceDoc>>(slicesPath(the().driverName, NODE_NAME))).items;
    expect(slices).toHaveLength(1);
    const spec = slices[0]?.spec;
    expect(spec).toMatchObject({ driver: the().driverName, nodeName: NODE_NAME, pool: { name: NODE_NAME } });
    expect(spec?.devices?.map((d) => d.name)).toEqual(['device-00', 'device-01']);
  });

  it('allocates, prepares and releases a claim of a Pod from a template of its class', async () => {
    const params = { kvts: 'dra-probe' };
    await createClaimTemplate(c.api, ns, 'one-device', {
      deviceClassName: the().deviceClassName,
      driverName: the().driverName,
      request: 'dev',
      parameters: params,
    });
    const command = ['sh', '-c', 'env | sort; exec sleep 600'];
    await createPod(c.api, ns, claimPod('probe', { claim: 'device', template: 'one-device', command }));
    const pod = await waitReady(c.api, ns, 'probe', 120_000);
    expect(pod.spec?.nodeName).toBe(NODE_NAME);

    const name = await podClaimName(c.api, ns, 'probe', 'device');
    const claim = await c.api.get<ClaimDoc>(claimPath(ns, name));
    const results = claim.status?.allocation?.devices?.results ?? [];
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ request: 'dev', driver: the().driverName, pool: NODE_NAME });
    expect(results[0]?.device).toMatch(/^device-0[01]$/);
    expect(claim.status?.reservedFor).toEqual([{ resource: 'pods', name: 'probe', uid: pod.metadata?.uid }]);

    const want = Object.entries(claimEnv(name, 'dev', params)).map(([k, v]) => `${k}=${v}`);
    const out = await waitFor(
      async () => {
        const text = await logs(c.api, ns, 'probe');
        return want.every((l) => text.split('\n').includes(l)) && text;
      },
      () => `the container's environment to hold ${want.join(', ')}`,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(out).toContain(`user_kvts=dra-probe`);
    const spec = cdiSpecFile(the().cdiDir, the().driverName, claim.metadata?.uid ?? '', 'dev');
    expect(existsSync(spec)).toBe(true);

    await c.api.remove(podPath(ns, 'probe'));
    await waitFor(
      async () => (await c.api.find(claimPath(ns, name))) === undefined && !existsSync(spec),
      `claim ${name} deleted and its CDI spec removed after the Pod went`,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const left = await c.api.get<List>(`${RESOURCE_API}/namespaces/${ns}/resourceclaims`);
    expect(left.items).toEqual([]);
  }, 300_000);
});
