/**
 * DRA devices of a VMI (kubevirt pkg/dra/utils.go, tag v1.6.2): a GPU or host device that names a claim
 * request instead of a device-plugin resource, and whether status.deviceStatus says enough of each to attach
 * it (IsAllDRAGPUsReconciled, IsAllDRAHostDevicesReconciled, with the Deckhouse fork's USB address).
 */
import type { Gpu, HostDevice } from './v1/devices.ts';
import type { VirtualMachineInstance } from './v1/objects.ts';
import type { DeviceStatusInfo } from './v1/vmi-status.ts';

/** KubeVirt's domain alias prefixes of DRA host devices and GPUs (written with the user-defined `ua-` before). */
export const DRA_HOST_DEVICE_ALIAS_PREFIX = 'dra-hostdevice-';
export const DRA_GPU_ALIAS_PREFIX = 'dra-gpu-';

type DeviceRequest = Pick<HostDevice, 'deviceName' | 'claimName' | 'requestName'>;

/** The device names a claim request: the fork inlines ClaimRequest, so it is there when either field is. */
export function hasClaimRequest(d: DeviceRequest): boolean {
  return d.claimName !== undefined || d.requestName !== undefined;
}

/** The device is allocated through DRA (IsGPUDRA, IsHostDeviceDRA): a claim request and no deviceName. */
export function isDraDevice(d: DeviceRequest): boolean {
  return (d.deviceName ?? '') === '' && hasClaimRequest(d);
}

export function hasDraDevices(vmi: VirtualMachineInstance): boolean {
  const devs = vmi.spec.domain.devices;
  return [...(devs.gpus ?? []), ...(devs.hostDevices ?? [])].some(isDraDevice);
}

/** The device a status entry names has attributes the launcher can attach it by (KubeVirt's "reconciled"). */
export function isAttachable(s: DeviceStatusInfo | undefined): boolean {
  const c = s?.deviceResourceClaimStatus;
  const a = c?.attributes;
  return (
    c?.resourceClaimName !== undefined &&
    c.name !== undefined &&
    (a?.pciAddress !== undefined || a?.mDevUUID !== undefined || a?.usbAddress !== undefined)
  );
}

/**
 * Why the VMI's DRA devices cannot be attached yet, or undefined when every one can
 * (kubevirt IsAllDRAGPUsReconciled / IsAllDRAHostDevicesReconciled).
 */
export function draDevicesPending(vmi: VirtualMachineInstance): string | undefined {
  const devs = vmi.spec.domain.devices;
  const status = vmi.status?.deviceStatus;
  const pending = (
    kind: string,
    list: readonly (Gpu | HostDevice)[] | undefined,
    statuses: readonly DeviceStatusInfo[] | undefined,
  ): string[] =>
    (list ?? [])
      .filter(isDraDevice)
      .filter((d) => !isAttachable(statuses?.find((s) => s.name === d.name)))
      .map((d) => `${kind} ${d.name}`);
  const names = [
    ...pending('GPU', devs.gpus, status?.gpuStatuses),
    ...pending('host device', devs.hostDevices, status?.hostDeviceStatuses),
  ];
  return names.length === 0 ? undefined : `waiting for the DRA devices of ${names.join(', ')}`;
}
