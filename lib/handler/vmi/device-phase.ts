/**
 * The Deckhouse fork's phase and address of each DRA device in status.deviceStatus, from the domain the launcher
 * reports. The fork's handler code is not public; Deckhouse's USB handler (usb_device_handler.go) counts a
 * device attached only in phase Ready and reads `address` as its guest USB address `<bus>:<port>`, and its tests
 * use the phases Pending, AttachedToPod and Ready. So, per entry of hostDeviceStatuses and gpuStatuses:
 * - Ready once the live domain has the device's hostdev (alias `ua-dra-hostdevice-<name>`, `ua-dra-gpu-<name>`),
 *   with the guest address libvirt gave a USB device;
 * - AttachedToPod while the device is allocated with an address to attach it by, not in the domain yet;
 * - Pending otherwise.
 * A reason and message (a failed attach, status.ts) are dropped: the sync that failed puts them back. Without a domain report the entries stay as they are. The DRA status controller keeps these fields when it
 * rewrites the rest of an entry. Pure.
 */
import {
  DRA_GPU_ALIAS_PREFIX,
  DRA_HOST_DEVICE_ALIAS_PREFIX,
  isAttachable,
  type DeviceStatusInfo,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import type { DomainJson, HostDeviceJson } from '../../rpc/index.ts';

type Status = NonNullable<VirtualMachineInstance['status']>;

const DEVICE_PHASES = { pending: 'Pending', attachedToPod: 'AttachedToPod', ready: 'Ready' } as const;

/** `<bus>:<port>` of a USB hostdev in the guest, or undefined for another kind or no address yet. */
function usbAddress(d: HostDeviceJson): string | undefined {
  const a = d.Address;
  if (a?.Type !== 'usb' || a.Bus === undefined || a.Port === undefined) return undefined;
  return `${a.Bus}:${a.Port}`;
}

function withPhase(s: DeviceStatusInfo, inDomain: HostDeviceJson | undefined): DeviceStatusInfo {
  const rest = { ...s };
  delete rest.phase;
  delete rest.address;
  delete rest.reason;
  delete rest.message;
  if (inDomain !== undefined) {
    const address = usbAddress(inDomain);
    return { ...rest, phase: DEVICE_PHASES.ready, ...(address !== undefined && { address }) };
  }
  return { ...rest, phase: isAttachable(s) ? DEVICE_PHASES.attachedToPod : DEVICE_PHASES.pending };
}

export function withDevicePhases(status: Status, domain: DomainJson | undefined): void {
  const ds = status.deviceStatus;
  if (domain === undefined || ds === undefined) return;
  const byAlias = new Map((domain.Spec.Devices.HostDevices ?? []).map((d) => [d.Alias?.Name ?? '', d]));
  const phases = (list: DeviceStatusInfo[] | undefined, prefix: string): DeviceStatusInfo[] | undefined =>
    list?.map((s) => withPhase(s, byAlias.get(`${prefix}${s.name}`)));
  const hostDevices = phases(ds.hostDeviceStatuses, DRA_HOST_DEVICE_ALIAS_PREFIX);
  const gpus = phases(ds.gpuStatuses, DRA_GPU_ALIAS_PREFIX);
  status.deviceStatus = {
    ...ds,
    ...(hostDevices !== undefined && { hostDeviceStatuses: hostDevices }),
    ...(gpus !== undefined && { gpuStatuses: gpus }),
  };
}
