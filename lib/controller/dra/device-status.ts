/**
 * status.deviceStatus of a VMI with DRA devices (kubevirt watch/dra/dra.go updateStatus, tag v1.6.2, and the
 * Deckhouse fork's USB address): for each GPU and host device that names a claim request, the ResourceClaim the
 * launcher Pod got for that claim, the device the scheduler allocated for the request, and the attributes of
 * that device in its ResourceSlice that the launcher attaches it by.
 *
 * - Nothing is computed until the Pod reports a claim for each of its resourceClaims, as KubeVirt waits.
 * - PCI address: `resource.kubernetes.io/pciBusID` (the Kubernetes standard attribute), or
 *   `resource.kubernetes.io/pcieRoot`, the key v1.6.2 reads.
 * - Mediated device: `resource.kubernetes.io/mDevUUID`.
 * - USB (fork): the `bus` and `deviceNumber` attributes Deckhouse's USB driver publishes. The fork's reader is
 *   not public; this follows the driver's attribute names and the status shape in the fork's CRD.
 * - The slice is matched by driver, pool and device name; KubeVirt matches driver and device on the Pod's node,
 *   which misses devices published without a node.
 */
import type { DeviceStatusInfo, Gpu, HostDevice, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { isDraDevice } from '../../kubevirt/index.ts';
import type { DeviceAttribute, ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';

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

function deviceStatusOf(
  d: Gpu | HostDevice,
  pod: Pod,
  namespace: string,
  lookups: DraLookups,
): DeviceStatusInfo {
  const claimName = pod.status?.resourceClaimStatuses?.find((s) => s.name === d.claimName)?.resourceClaimName;
  if (claimName === undefined) return { name: d.name, deviceResourceClaimStatus: {} };
  const res = { resourceClaimName: claimName };
  const results = lookups.claim(namespace, claimName)?.status?.allocation?.devices?.results ?? [];
  const alloc = results.find((r) => r.request === d.requestName);
  if (alloc === undefined) return { name: d.name, deviceResourceClaimStatus: res };
  const attrs = sliceAttributes(lookups.slices(alloc.driver, alloc.pool), alloc.device);
  return {
    name: d.name,
    deviceResourceClaimStatus: { ...res, name: alloc.device, attributes: deviceAttributes(attrs) },
  };
}

/**
 * The device status the Pod and the DRA objects imply; undefined while the Pod has not reported its claims
 * (the status then stays as it is).
 */
export function computeDeviceStatus(
  vmi: VirtualMachineInstance,
  pod: Pod,
  lookups: DraLookups,
): DeviceStatus | undefined {
  if (!claimsReported(pod)) return undefined;
  const ns = vmi.metadata.namespace ?? '';
  const of = (list: readonly (Gpu | HostDevice)[] | undefined): DeviceStatusInfo[] | undefined => {
    const dra = (list ?? []).filter(isDraDevice);
    return dra.length === 0 ? undefined : dra.map((d) => deviceStatusOf(d, pod, ns, lookups));
  };
  const out: DeviceStatus = {};
  const gpus = of(vmi.spec.domain.devices.gpus);
  const hostDevices = of(vmi.spec.domain.devices.hostDevices);
  if (gpus !== undefined) out.gpuStatuses = gpus;
  if (hostDevices !== undefined) out.hostDeviceStatuses = hostDevices;
  return out;
}
