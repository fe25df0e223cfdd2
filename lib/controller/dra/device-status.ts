/**
 * status.deviceStatus of a VMI with DRA devices (kubevirt watch/dra/dra.go updateStatus, tag v1.6.2, and the
 * Deckhouse fork's USB address): for each GPU and host device that names a claim request, the ResourceClaim the
 * launcher Pod got for that claim, the device the scheduler allocated for the request, and the attributes of
 * that device in its ResourceSlice that the launcher attaches it by.
 *
 * - Nothing is computed until the Pod reports a claim for each of its resourceClaims, as KubeVirt waits.
 * - A claim hotplugged into the running VMI (not one of the launcher Pod's) is read from the attachment Pod
 *   holding it (vmi/device-attachment.ts), which the fork's `hotplug` field names; until that Pod exists and
 *   reports its claim, the device's entry has no claim.
 * - PCI address: `resource.kubernetes.io/pciBusID` (the Kubernetes standard attribute), or
 *   `resource.kubernetes.io/pcieRoot`, the key v1.6.2 reads.
 * - Mediated device: `resource.kubernetes.io/mDevUUID`.
 * - USB (fork): the `bus` and `deviceNumber` attributes Deckhouse's USB driver publishes. The fork's reader is
 *   not public; this follows the driver's attribute names and the status shape in the fork's CRD.
 * - The fork's phase, address, reason and message of an entry are the handler's (handler/vmi/device-phase.ts):
 *   kept as they are.
 * - The slice is matched by driver, pool and device name; KubeVirt matches driver and device on the Pod's node,
 *   which misses devices published without a node.
 */
import type { DeviceStatusInfo, Gpu, HostDevice, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { isDraDevice } from '../../kubevirt/index.ts';
import type { DeviceAttribute, ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { heldClaim } from '../vmi/device-attachment.ts';

export const PCI_BUS_ID_ATTRIBUTE = 'resource.kubernetes.io/pciBusID';
const PCIE_ROOT_ATTRIBUTE = 'resource.kubernetes.io/pcieRoot';
export const MDEV_UUID_ATTRIBUTE = 'resource.kubernetes.io/mDevUUID';
export const USB_BUS_ATTRIBUTE = 'bus';
export const USB_DEVICE_NUMBER_ATTRIBUTE = 'deviceNumber';

export interface DeviceStatus {
  gpuStatuses?: DeviceStatusInfo[];
  hostDeviceStatuses?: DeviceStatusInfo[];
}

export interface DraLookups {
  claim(namespace: string, name: string): ResourceClaim | undefined;
  /** The slices of driver's pool. */
  slices(driver: string, pool: string): readonly ResourceSlice[];
}

type Attributes = NonNullable<NonNullable<DeviceStatusInfo['deviceResourceClaimStatus']>['attributes']>;

/** Every Pod resource claim has its ResourceClaim named in the Pod's status. */
function claimsReported(pod: Pod): boolean {
  const wanted = (pod.spec['resourceClaims'] as { name: string }[] | undefined) ?? [];
  const got = new Set(
    (pod.status?.resourceClaimStatuses ?? []).flatMap((s) => (s.resourceClaimName ? [s.name] : [])),
  );
  return wanted.every((c) => got.has(c.name));
}

function text(a: DeviceAttribute | undefined): string | undefined {
  if (a?.string !== undefined && a.string !== '') return a.string;
  return a?.int !== undefined ? String(a.int) : undefined;
}

/** A decimal USB bus or device number as the driver writes it ("001", 1); undefined when it is not one. */
function usbNumber(a: DeviceAttribute | undefined): number | undefined {
  const t = text(a);
  return t !== undefined && /^\d{1,3}$/.test(t) ? Number(t) : undefined;
}

export function deviceAttributes(attrs: Readonly<Record<string, DeviceAttribute>>): Attributes {
  const out: Attributes = {};
  const pci = text(attrs[PCI_BUS_ID_ATTRIBUTE]) ?? text(attrs[PCIE_ROOT_ATTRIBUTE]);
  if (pci !== undefined) out.pciAddress = pci;
  const mdev = text(attrs[MDEV_UUID_ATTRIBUTE]);
  if (mdev !== undefined) out.mDevUUID = mdev;
  const bus = usbNumber(attrs[USB_BUS_ATTRIBUTE]);
  const deviceNumber = usbNumber(attrs[USB_DEVICE_NUMBER_ATTRIBUTE]);
  if (bus !== undefined && deviceNumber !== undefined) out.usbAddress = { bus, deviceNumber };
  return out;
}

function sliceAttributes(slices: readonly ResourceSlice[], device: string): Record<string, DeviceAttribute> {
  for (const s of slices) {
    const found = s.spec.devices?.find((dev) => dev.name === device);
    if (found !== undefined) return found.attributes ?? {};
  }
  return {};
}

/** The Pod that holds claim: the launcher when it has it, else the live attachment Pod holding it. */
function holderOf(claim: string | undefined, pods: DraPods): Pod | undefined {
  const inLauncher = (pods.launcher.spec['resourceClaims'] as { name: string }[] | undefined) ?? [];
  if (inLauncher.some((c) => c.name === claim)) return pods.launcher;
  return pods.devicePods.find((p) => p.metadata.deletionTimestamp === undefined && heldClaim(p) === claim);
}

/** The fork's `hotplug` of a device whose claim an attachment Pod holds. */
function hotplugOf(holder: Pod | undefined, pods: DraPods): Pick<DeviceStatusInfo, 'hotplug'> {
  if (holder === undefined || holder === pods.launcher) return {};
  return { hotplug: { attachPodName: holder.metadata.name ?? '', attachPodUID: holder.metadata.uid ?? '' } };
}

/** What the claim (reported by its holder) and its allocation say of the device. */
function claimStatusOf(
  d: Gpu | HostDevice,
  holder: Pod | undefined,
  namespace: string,
  lookups: DraLookups,
): NonNullable<DeviceStatusInfo['deviceResourceClaimStatus']> {
  const claimName = holder?.status?.resourceClaimStatuses?.find(
    (s) => s.name === d.claimName,
  )?.resourceClaimName;
  if (claimName === undefined) return {};
  const res = { resourceClaimName: claimName };
  const results = lookups.claim(namespace, claimName)?.status?.allocation?.devices?.results ?? [];
  const alloc = results.find((r) => r.request === d.requestName);
  if (alloc === undefined) return res;
  const attrs = sliceAttributes(lookups.slices(alloc.driver, alloc.pool), alloc.device);
  return { ...res, name: alloc.device, attributes: deviceAttributes(attrs) };
}

function deviceStatusOf(
  d: Gpu | HostDevice,
  pods: DraPods,
  namespace: string,
  lookups: DraLookups,
): DeviceStatusInfo {
  const holder = holderOf(d.claimName, pods);
  return {
    name: d.name,
    deviceResourceClaimStatus: claimStatusOf(d, holder, namespace, lookups),
    ...hotplugOf(holder, pods),
  };
}

/** The handler's fields of the device's entry (the fork's phase, address, reason, message) kept as they were. */
function withHandlerFields(s: DeviceStatusInfo, had: readonly DeviceStatusInfo[] | undefined): DeviceStatusInfo {
  const old = had?.find((h) => h.name === s.name);
  if (old === undefined) return s;
  const { phase, address, reason, message } = old;
  return {
    ...s,
    ...(phase !== undefined && { phase }),
    ...(address !== undefined && { address }),
    ...(reason !== undefined && { reason }),
    ...(message !== undefined && { message }),
  };
}

export interface DraPods {
  /** The current launcher Pod. */
  launcher: Pod;
  /** Its attachment Pods of hotplugged DRA claims. */
  devicePods: readonly Pod[];
}

/**
 * The device status the Pods and the DRA objects imply; undefined while the launcher Pod has not reported its
 * claims (the status then stays as it is).
 */
export function computeDeviceStatus(
  vmi: VirtualMachineInstance,
  pods: DraPods,
  lookups: DraLookups,
): DeviceStatus | undefined {
  if (!claimsReported(pods.launcher)) return undefined;
  const ns = vmi.metadata.namespace ?? '';
  const of = (
    list: readonly (Gpu | HostDevice)[] | undefined,
    had: readonly DeviceStatusInfo[] | undefined,
  ): DeviceStatusInfo[] | undefined => {
    const dra = (list ?? []).filter(isDraDevice);
    if (dra.length === 0) return undefined;
    return dra.map((d) => withHandlerFields(deviceStatusOf(d, pods, ns, lookups), had));
  };
  const out: DeviceStatus = {};
  const had = vmi.status?.deviceStatus;
  const gpus = of(vmi.spec.domain.devices.gpus, had?.gpuStatuses);
  const hostDevices = of(vmi.spec.domain.devices.hostDevices, had?.hostDeviceStatuses);
  if (gpus !== undefined) out.gpuStatuses = gpus;
  if (hostDevices !== undefined) out.hostDeviceStatuses = hostDevices;
  return out;
}
