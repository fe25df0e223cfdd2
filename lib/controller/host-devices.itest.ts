/**
 * The KubeVirt CR's permittedHostDevices against a real kube-apiserver, through the rewriter rules: the VMI
 * controller reads the CR from its own namespace and renders no launcher Pod for a VMI asking for a device
 * the list does not permit (Synchronized False with KubeVirt's message); a permitted device becomes the
 * launcher Pod's resource limit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/gvr.ts';
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { PODS } from '../kernel/kube/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { startControllerEnv, type ControllerEnv } from './testing/cluster.ts';

let env: ControllerEnv;

beforeAll(async () => {
  env = await startControllerEnv('hostdev');
});
afterAll(async () => {
  await env.close();
});

const createVmi = (name: string, deviceName: string): Promise<VirtualMachineInstance> =>
  env.kv.create<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: env.ns },
    spec: {
      domain: {
        resources: { requests: { memory: '128Mi' } },
        devices: { hostDevices: [{ name: 'dev', deviceName }] },
      },
    },
  });

const launcherPods = async (vmi: VirtualMachineInstance): Promise<Pod[]> =>
  (
    await env.kv.list<Pod>(PODS, {
      namespace: env.ns,
      labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`,
    })
  ).items;

describe('permittedHostDevices', () => {
  it('a device the KubeVirt CR does not permit gets no launcher Pod; a permitted one is requested', async () => {
    await env.kv.create(KUBEVIRTS, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'config', namespace: env.ns },
      spec: {
        configuration: {
          permittedHostDevices: {
            pciHostDevices: [{ pciVendorSelector: '10DE:1EB8', resourceName: 'nvidia.com/TU104GL_Tesla_T4' }],
          },
        },
      },
    });
    await waitFor(
      () => env.controllers.informers.informer(KUBEVIRTS).store.list().length === 1,
      "the KubeVirt CR in the controllers' cache",
    );

    const refused = await createVmi('refused', 'nvidia.com/GA100_A100');
    const failed = await waitFor(async () => {
      const v = await env.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'refused', {
        namespace: env.ns,
      });
      return v.status?.conditions?.find((c) => c.type === 'Synchronized' && c.status === 'False');
    }, 'VMI refused: Synchronized False');
    expect(failed).toMatchObject({
      reason: 'FailedCreate',
      message:
        'failed to render launch manifest: HostDevice nvidia.com/GA100_A100 is not permitted in permittedHostDevices configuration',
    });
    expect(await launcherPods(refused)).toEqual([]);

    const allowed = await createVmi('allowed', 'nvidia.com/TU104GL_Tesla_T4');
    const pod = await waitFor(async () => (await launcherPods(allowed))[0], 'launcher Pod of VMI allowed');
    expect(pod.spec.containers[0]?.resources?.['limits']).toMatchObject({
      'nvidia.com/TU104GL_Tesla_T4': '1',
    });
  });
});
