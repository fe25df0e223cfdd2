/**
 * Which GPUs and host devices are allocated through DRA (kubevirt pkg/dra/utils.go IsGPUDRA, IsHostDeviceDRA,
 * tag v1.6.2): no device-plugin deviceName, and a claim request. The fork inlines ClaimRequest, so the request
 * is there when either claimName or requestName is.
 */
import type { HostDevice } from './v1/devices.ts';

type DeviceRequest = Pick<HostDevice, 'deviceName' | 'claimName' | 'requestName'>;

/** The device names a claim request (claimName or requestName). */
export function hasClaimRequest(d: DeviceRequest): boolean {
  return d.claimName !== undefined || d.requestName !== undefined;
}

/** The device is allocated through DRA: a claim request and no deviceName. */
export function isDraDevice(d: DeviceRequest): boolean {
  return (d.deviceName ?? '') === '' && hasClaimRequest(d);
}
