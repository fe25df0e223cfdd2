/**
 * Dynamic resource allocation through the real path on node `local`, with Kubernetes' own DRA test driver as
 * the kubelet plugin (dra-driver.ts):
 * - the driver registers with the kubelet and publishes its devices in a ResourceSlice of the node;
 * - a Pod with a claim from a ResourceClaimTemplate of the driver's DeviceClass is scheduled, the scheduler
 *   allocates the claim (status.allocation.devices.results) and reserves it for the Pod, the kubelet has the
 *   driver prepare it, and the container sees the variables of the CDI spec the driver wrote;
 * - once the Pod is gone the claim is deleted and unprepared (its CDI spec removed);
 * - a VM's DRA host device: its claim goes onto the launcher Pod and the compute container, is allocated and
 *   prepared with the Pod, and the DRA status controller reports the claim and the device in
 *   status.deviceStatus. The test driver's devices carry no attribute a domain attaches a device by, so the
 *   VMI waits with a DRADeviceNotAttachable warning and no domain;
 * - a USB device as Deckhouse's USB driver publishes it (a slice of the test driver with `bus` and
 *   `deviceNumber`, prepared by the same plugin) reaches the VMI as the fork's usbAddress, the handler starts
 *   the domain with it as a USB hostdev, and libvirt refuses the start: this host has no USB subsystem at all
 *   (`/sys/bus/usb` is absent), so no USB device can be passed through here;
 * - the same USB device hotplugged into a running VM (the fork's addresourceclaim, as Deckhouse's USB attach
 *   handler asks it): the claim goes into the VMI, an attachment Pod on the node holds it, the scheduler
 *   allocates it and the kubelet prepares it for that Pod, the status names the Pod and the address, and the
 *   launcher's live attach meets the same refusal while the guest runs on; removing it takes the Pod and the
 *   claim away.
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { VIRTUAL_MACHINES, VIRTUAL_MACHINE_INSTANCES } from '../../lib/kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineResourceClaimRequest } from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { EVENTS, PODS, type KubeObject } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { startDraDriver, type RunningDraDriver } from './dra-driver.ts';
import { cdiSpecFile, claimEnv, RESOURCE_API, slicesPath } from './dra-objects.ts';
import type { List, Obj } from './kube.ts';
import { NODE_NAME } from './layout.ts';
import { claimPath, claimPod, createClaimTemplate, podClaimName, type ClaimDoc } from './testing/dra.ts';
import { createPod, logs, podPath, waitReady } from './testing/pods.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, vmiRunning } from './virt.ts';

let driver: RunningDraDriver | undefined;

// The namespace's Pods go while the driver still runs (the kubelet needs it to unprepare their claims): the
// suite's cleanup runs once the namespace is gone.
const s = virtSuite('dra', {
  handler: true,
  cleanup: async () => {
    await driver?.stop();
  },
});

beforeAll(async () => {
  driver = await startDraDriver({
    dir: s.c.dir,
    kubeconfig: s.c.kubeconfig,
    api: s.c.api,
    deviceClassName: `kvts-${s.ns}`,
    numDevices: 2,
  });
}, 1_200_000);

const the = (): RunningDraDriver => {
  if (driver === undefined) throw new Error('the DRA driver did not start');
  return driver;
};

interface SliceDoc extends Obj {
  spec?: { driver?: string; nodeName?: string; pool?: { name?: string }; devices?: { name?: string }[] };
}

describe('DRA with the test driver on node local', () => {
  it('publishes its devices in a ResourceSlice of the node', async () => {
    const slices = (await s.c.api.get<List<SliceDoc>>(slicesPath(the().driverName, NODE_NAME))).items;
    expect(slices).toHaveLength(1);
    const spec = slices[0]?.spec;
    expect(spec).toMatchObject({ driver: the().driverName, nodeName: NODE_NAME, pool: { name: NODE_NAME } });
    expect(spec?.devices?.map((d) => d.name)).toEqual(['device-00', 'device-01']);
  });

  it('allocates, prepares and releases a claim of a Pod from a template of its class', async () => {
    const params = { kvts: 'dra-probe' };
    await createClaimTemplate(s.c.api, s.ns, 'one-device', {
      deviceClassName: the().deviceClassName,
      driverName: the().driverName,
      request: 'dev',
      parameters: params,
    });
    const command = ['sh', '-c', 'env | sort; exec sleep 600'];
    await createPod(s.c.api, s.ns, claimPod('probe', { claim: 'device', template: 'one-device', command }));
    const pod = await waitReady(s.c.api, s.ns, 'probe', 120_000);
    expect(pod.spec?.nodeName).toBe(NODE_NAME);

    const name = await podClaimName(s.c.api, s.ns, 'probe', 'device');
    const claim = await s.c.api.get<ClaimDoc>(claimPath(s.ns, name));
    const results = claim.status?.allocation?.devices?.results ?? [];
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ request: 'dev', driver: the().driverName, pool: NODE_NAME });
    expect(results[0]?.device).toMatch(/^device-0[01]$/);
    expect(claim.status?.reservedFor).toEqual([{ resource: 'pods', name: 'probe', uid: pod.metadata?.uid }]);

    const want = Object.entries(claimEnv(name, 'dev', params)).map(([k, v]) => `${k}=${v}`);
    const out = await waitFor(
      async () => {
        const text = await logs(s.c.api, s.ns, 'probe');
        return want.every((l) => text.split('\n').includes(l)) && text;
      },
      () => `the container's environment to hold ${want.join(', ')}`,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(out).toContain(`user_kvts=dra-probe`);
    const spec = cdiSpecFile(the().cdiDir, the().driverName, claim.metadata?.uid ?? '', 'dev');
    expect(existsSync(spec)).toBe(true);

    await s.c.api.remove(podPath(s.ns, 'probe'));
    await waitFor(
      async () => (await s.c.api.find(claimPath(s.ns, name))) === undefined && !existsSync(spec),
      `claim ${name} deleted and its CDI spec removed after the Pod went`,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const left = await s.c.api.get<List>(`${RESOURCE_API}/namespaces/${s.ns}/resourceclaims`);
    expect(left.items).toEqual([]);
  }, 300_000);
});

interface Event extends KubeObject {
  involvedObject?: { name?: string };
  type?: string;
  reason?: string;
  message?: string;
}

const getVmi = (name: string): Promise<VirtualMachineInstance | undefined> =>
  s.clients.kv
    .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: s.ns })
    .catch(() => undefined);

/** A warning of `reason` on the VMI `name`, once there (its message). */
function warning(name: string, reason: string, match: RegExp, timeoutMs = 120_000): Promise<string> {
  return waitFor(
    async () => {
      const events = await s.clients.direct.list<Event>(EVENTS, { namespace: s.ns });
      const e = events.items.find(
        (ev) =>
          ev.involvedObject?.name === name &&
          ev.type === 'Warning' &&
          ev.reason === reason &&
          match.test(ev.message ?? ''),
      );
      return e?.message;
    },
    `a ${reason} warning on ${name} matching ${String(match)}`,
    { timeoutMs, intervalMs: 500 },
  );
}

/** A running VM of the agent guest with one DRA host device `device` from the claim template. */
async function createDraVm(name: string, device: string, template: string): Promise<void> {
  const vm = await agentVm(s.ns, name);
  vm.spec.runStrategy = 'Always';
  const spec = vm.spec.template.spec;
  spec.resourceClaims = [{ name: device, resourceClaimTemplateName: template }];
  spec.domain.devices.hostDevices = [{ name: device, claimName: device, requestName: device }];
  await s.clients.kv.create(VIRTUAL_MACHINES, vm);
}

/** The VMI's status entry of host device `device` once the DRA status controller named the allocated device. */
function deviceStatusOf(name: string, device: string): Promise<VirtualMachineInstance> {
  return waitFor(
    async () => {
      const vmi = await getVmi(name);
      const entry = vmi?.status?.deviceStatus?.hostDeviceStatuses?.find((d) => d.name === device);
      return entry?.deviceResourceClaimStatus?.name !== undefined && vmi;
    },
    `the allocated device of ${name}'s ${device} in status.deviceStatus`,
    { timeoutMs: 180_000, intervalMs: 500 },
  );
}

async function launcherPod(vm: string): Promise<Pod> {
  const pods = await s.clients.direct.list<Pod>(PODS, { namespace: s.ns });
  const pod = pods.items.find((p) => p.metadata.name?.startsWith(`virt-launcher-${vm}-`));
  if (pod === undefined) throw new Error(`no launcher Pod of ${vm}`);
  return pod;
}

async function allocatedDevice(claimName: string): Promise<string> {
  const claim = await s.c.api.get<ClaimDoc>(claimPath(s.ns, claimName));
  return claim.status?.allocation?.devices?.results?.[0]?.device ?? '';
}

async function deleteVm(name: string): Promise<void> {
  await s.clients.kv.delete(VIRTUAL_MACHINES, name, { namespace: s.ns });
  await waitFor(async () => (await getVmi(name)) === undefined, `VMI ${name} gone`, {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
}

/**
 * USB device 001:002 as Deckhouse's USB driver publishes it, in a slice of the test driver (allNodes, so that
 * the test driver's own slice controller, which owns the node's slices, leaves it alone).
 */
async function createUsbSlice(): Promise<void> {
  const driverName = the().driverName;
  await s.c.api.create(`${RESOURCE_API}/resourceslices`, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `kvts-${s.ns}-usb` },
    spec: {
      driver: driverName,
      pool: { name: `kvts-${s.ns}-usb`, generation: 1, resourceSliceCount: 1 },
      allNodes: true,
      devices: [
        {
          name: 'usb-001-002',
          attributes: {
            bus: { string: '001' },
            deviceNumber: { string: '002' },
            vendorID: { string: '1d6b' },
            productID: { string: '0104' },
          },
        },
      ],
    },
  });
}

const removeUsbSlice = (): Promise<unknown> =>
  s.c.api.remove(`${RESOURCE_API}/resourceslices/kvts-${s.ns}-usb`).catch(() => undefined);

/** A claim template selecting the USB device of bus 001, with one request. */
const usbTemplate = (name: string, request: string): Promise<unknown> =>
  createClaimTemplate(s.c.api, s.ns, name, {
    deviceClassName: the().deviceClassName,
    driverName: the().driverName,
    request,
    selector: `device.attributes[${JSON.stringify(the().driverName)}].bus == "001"`,
  });

/** What addresourceclaim or removeresourceclaim on the VM writes: one request in its status. */
async function requestClaim(vm: string, request: VirtualMachineResourceClaimRequest): Promise<void> {
  await s.clients.kv.patch(
    VIRTUAL_MACHINES,
    vm,
    { status: { resourceClaimRequests: [request] } },
    { type: 'merge', namespace: s.ns, subresource: 'status' },
  );
}

/**
 * The USB device hotplugged into the VMI as `device`: allocated for an attachment Pod on the node that holds
 * its claim, which the launcher Pod does not have, and reported with that Pod and the device's address.
 */
async function hotpluggedUsb(vm: string, device: string): Promise<{ holderName: string; claimName: string }> {
  const vmi = await deviceStatusOf(vm, device);
  const [entry] = vmi.status?.deviceStatus?.hostDeviceStatuses ?? [];
  if (entry?.hotplug?.attachPodName === undefined) throw new Error(`no attachment Pod named for ${device}`);
  expect(entry.deviceResourceClaimStatus).toMatchObject({
    name: 'usb-001-002',
    attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
  });
  const holderName = entry.hotplug.attachPodName;
  expect(holderName).toMatch(/^hp-device-/);
  // Read through the rewriting client, which shows the Pod's labels as the roles speak them.
  const holder = await s.clients.kv.get<Pod>(PODS, holderName, { namespace: s.ns });
  expect(holder.metadata.labels).toEqual({ 'kubevirt.io': 'hotplug-device' });
  expect(holder.metadata.uid).toBe(entry.hotplug.attachPodUID);
  expect(holder.spec.nodeName).toBe(NODE_NAME);
  const claimName = await podClaimName(s.c.api, s.ns, holderName, device);
  expect(entry.deviceResourceClaimStatus?.resourceClaimName).toBe(claimName);
  const claim = await s.c.api.get<ClaimDoc>(claimPath(s.ns, claimName));
  expect(claim.status?.reservedFor).toEqual([
    { resource: 'pods', name: holderName, uid: holder.metadata.uid },
  ]);
  expect((await launcherPod(vm)).spec['resourceClaims']).toBeUndefined();
  return { holderName, claimName };
}

/** The claim out of the VMI, and its attachment Pod and ResourceClaim gone. */
function unplugged(vm: string, holderName: string, claimName: string): Promise<boolean> {
  return waitFor(
    async () => {
      const gone = ((await getVmi(vm))?.spec.resourceClaims ?? []).length === 0;
      const pod = await s.clients.direct
        .get<Pod>(PODS, holderName, { namespace: s.ns })
        .catch(() => undefined);
      return gone && pod === undefined && (await s.c.api.find(claimPath(s.ns, claimName))) === undefined;
    },
    'the claim out of the VMI, its attachment Pod and its ResourceClaim gone',
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

describe('a VM with a DRA host device', () => {
  it('gets its claim with the launcher Pod and its device in status.deviceStatus; without an address it waits', async () => {
    await createClaimTemplate(s.c.api, s.ns, 'test-device', {
      deviceClassName: the().deviceClassName,
      driverName: the().driverName,
      request: 'dev',
    });
    await createDraVm('dra-wait', 'dev', 'test-device');
    const vmi = await deviceStatusOf('dra-wait', 'dev');
    const pod = await launcherPod('dra-wait');
    expect(pod.spec['resourceClaims']).toEqual([{ name: 'dev', resourceClaimTemplateName: 'test-device' }]);
    expect(pod.spec.containers[0]?.resources?.claims).toEqual([{ name: 'dev', request: 'dev' }]);
    const claimName = await podClaimName(s.c.api, s.ns, pod.metadata.name ?? '', 'dev');
    const device = await allocatedDevice(claimName);
    expect(vmi.status?.deviceStatus?.hostDeviceStatuses).toEqual([
      {
        name: 'dev',
        deviceResourceClaimStatus: { resourceClaimName: claimName, name: device, attributes: {} },
      },
    ]);
    expect(
      await warning('dra-wait', 'DRADeviceNotAttachable', new RegExp(`${device} allocated for dev`)),
    ).toMatch(/none of the attributes/);
    // The handler does not start a domain it cannot give the device: the VMI stays Scheduled, and no sync was
    // tried (the launcher would refuse the device and the handler warn SyncFailed).
    await new Promise((r) => setTimeout(r, 5000));
    expect((await getVmi('dra-wait'))?.status?.phase).toBe('Scheduled');
    const events = await s.clients.direct.list<Event>(EVENTS, { namespace: s.ns });
    expect(
      events.items.filter((e) => e.involvedObject?.name === 'dra-wait' && e.reason === 'SyncFailed'),
    ).toEqual([]);
    await deleteVm('dra-wait');
  }, 400_000);

  it('a USB device as Deckhouse publishes it reaches the domain, which libvirt cannot start without USB', async () => {
    await createUsbSlice();
    try {
      await usbTemplate('usb-device', 'usb');
      await createDraVm('dra-usb', 'usb', 'usb-device');
      const vmi = await deviceStatusOf('dra-usb', 'usb');
      expect(vmi.status?.deviceStatus?.hostDeviceStatuses?.[0]?.deviceResourceClaimStatus).toMatchObject({
        name: 'usb-001-002',
        attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
      });
      // The domain asked libvirt for the host's USB device 001:002; this host has no USB subsystem.
      expect(await warning('dra-usb', 'SyncFailed', /\/sys\/bus\/usb/)).toMatch(/cannot open directory/);
      await deleteVm('dra-usb');
    } finally {
      await removeUsbSlice();
    }
  }, 400_000);

  it('a USB device hotplugged into the running VM is held by an attachment Pod and handed to the domain', async () => {
    // What Deckhouse's USB attach handler asks of a running VM: addresourceclaim with the claim from
    // template <device>-template and request req-<device>, which the API writes into status.resourceClaimRequests.
    await createUsbSlice();
    try {
      await usbTemplate('usb-hot-template', 'req-usb-hot');
      const vm = await agentVm(s.ns, 'dra-hot');
      vm.spec.runStrategy = 'Always';
      // kvbuilder gives every VM this USB tablet, and with it the USB controller a USB device is plugged into:
      // libvirt refuses a USB hostdev outright on a domain started without one.
      vm.spec.template.spec.domain.devices.inputs = [{ name: 'default-0', bus: 'usb', type: 'tablet' }];
      await s.clients.kv.create(VIRTUAL_MACHINES, vm);
      await vmiRunning(s.clients, s.ns, 'dra-hot');
      await requestClaim('dra-hot', {
        addResourceClaimOptions: {
          name: 'usb-hot',
          hostDevice: { name: 'usb-hot', claimName: 'usb-hot', requestName: 'req-usb-hot' },
          resourceClaim: {
            name: 'usb-hot',
            resourceClaimTemplateName: 'usb-hot-template',
            hotpluggable: true,
          },
        },
      });
      const { holderName, claimName } = await hotpluggedUsb('dra-hot', 'usb-hot');
      // The handler has the launcher attach it to the running domain; libvirt refuses (no USB here), the guest
      // runs on.
      expect(await warning('dra-hot', 'SyncFailed', /\/sys\/bus\/usb/)).toMatch(/cannot open directory/);
      expect((await getVmi('dra-hot'))?.status?.phase).toBe('Running');
      // Allocated with an address but not in the domain: the fork's AttachedToPod, not Ready (which Deckhouse
      // counts as attached), and no guest address.
      const entry = await waitFor(
        async () => {
          const e = (await getVmi('dra-hot'))?.status?.deviceStatus?.hostDeviceStatuses?.[0];
          return e?.phase === 'AttachedToPod' && e.reason !== undefined && e;
        },
        'the hotplugged device AttachedToPod, with the reason its attach failed',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(entry).toMatchObject({ name: 'usb-hot', phase: 'AttachedToPod', reason: 'HotplugFailed' });
      expect(entry.message).toMatch(
        /^failed to attach host device dra-hostdevice-usb-hot to the domain: .*\/sys\/bus\/usb/,
      );
      expect(entry.address).toBeUndefined();

      // removeresourceclaim: the device leaves the VMI and the attachment Pod goes with its claim.
      await requestClaim('dra-hot', { removeResourceClaimOptions: { name: 'usb-hot' } });
      await unplugged('dra-hot', holderName, claimName);
      expect((await getVmi('dra-hot'))?.status?.phase).toBe('Running');
      await deleteVm('dra-hot');
    } finally {
      await removeUsbSlice();
    }
  }, 500_000);
});
