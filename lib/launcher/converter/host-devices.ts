/**
 * GPUs and host devices allocated through DRA, passed through as the VMI's status says they were allocated
 * (kubevirt virtwrap/device/hostdevice/dra generic_hostdev.go CreateDRAHostDevices, gpu_hostdev.go
 * CreateDRAGPUHostDevices, tag v1.6.2; manager.go puts the host devices before the GPUs). The controller copies
 * each device's attributes from its ResourceClaim allocation into status.deviceStatus: a PCI address, a mediated
 * device's UUID or, in the Deckhouse fork, a USB bus and device number. A device-plugin device (deviceName) is
 * unsupported.ts's refusal, not this file's.
 */
import {
  DRA_GPU_ALIAS_PREFIX,
  DRA_HOST_DEVICE_ALIAS_PREFIX,
  isDraDevice,
  type DeviceStatusInfo,
  type Gpu,
  type HostDevice as VmiHostDevice,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { userAlias, type HostDevice, type PciAddress } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

type Attributes = NonNullable<NonNullable<DeviceStatusInfo['deviceResourceClaimStatus']>['attributes']>;

interface DraList {
  readonly spec: 'hostDevices' | 'gpus';
  readonly status: 'hostDeviceStatuses' | 'gpuStatuses';
  /** What a message calls one of them. */
  readonly noun: string;
  /** KubeVirt's alias prefix (written with the user-defined `ua-` before it). */
  readonly aliasPrefix: string;
  /** Whether a USB device (attributes.usbAddress) can be one of them. */
  readonly usb: boolean;
}

/**
 * USB is the Deckhouse fork's (attributes.usbAddress, its status schema): its launcher code is not public, so
 * the `<hostdev type="usb">` by bus and device number, after the PCI and mdev ones and with the same alias
 * prefix, is inferred from the status it fills and from how KubeVirt passes a device-plugin USB device through.
 */
const HOST_DEVICES: DraList = {
  spec: 'hostDevices',
  status: 'hostDeviceStatuses',
  noun: 'host device',
  aliasPrefix: DRA_HOST_DEVICE_ALIAS_PREFIX,
  usb: true,
};

const GPUS: DraList = {
  spec: 'gpus',
  status: 'gpuStatuses',
  noun: 'GPU',
  aliasPrefix: DRA_GPU_ALIAS_PREFIX,
  usb: false,
};

/** KubeVirt's order: every PCI device first, then every mdev (then, in the fork, every USB device). */
const KIND_ORDER: readonly HostDevice['type'][] = ['pci', 'mdev', 'usb'];

const PCI_ADDRESS = /^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7])$/;

/** A host PCI address as the status writes it (0000:3b:00.0), in libvirt's 0x form (device.NewPciAddressField). */
function pciSource(address: string, field: string): PciAddress {
  const m = PCI_ADDRESS.exec(address);
  if (m === null) {
    throw new ConversionError(
      `${field}.pciAddress`,
      `${JSON.stringify(address)} is not a PCI address (domain:bus:slot.function, as 0000:3b:00.0)`,
    );
  }
  const [, domain = '', bus = '', slot = '', fn = ''] = m;
  return { type: 'pci', domain: `0x${domain}`, bus: `0x${bus}`, slot: `0x${slot}`, function: `0x${fn}` };
}

/** The hostdev the attributes make (the PCI address wins, then the mdev UUID), or none. */
function hostDeviceOf(
  list: DraList,
  name: string,
  attributes: Attributes,
  field: string,
): HostDevice | undefined {
  const alias = userAlias(`${list.aliasPrefix}${name}`);
  const { pciAddress, mDevUUID, usbAddress } = attributes;
  if (pciAddress !== undefined) return { type: 'pci', source: pciSource(pciAddress, field), alias };
  if (mDevUUID !== undefined) return { type: 'mdev', uuid: mDevUUID, alias };
  if (usbAddress !== undefined && list.usb) {
    return { type: 'usb', bus: usbAddress.bus, device: usbAddress.deviceNumber, alias };
  }
  return undefined;
}

interface Allocated {
  /** The VMI device's name. */
  readonly name: string;
  readonly device: HostDevice;
}

/** Why a DRA device has no hostdev yet, for the refusal. */
function missingWhy(vmi: VirtualMachineInstance, list: DraList, name: string): string {
  const where = `status.deviceStatus.${list.status}`;
  if (vmi.status?.deviceStatus === undefined) return 'the VMI has no status.deviceStatus';
  const entry = vmi.status.deviceStatus[list.status]?.find((s) => s.name === name);
  if (entry === undefined) return `${where} has no entry for it`;
  if (entry.deviceResourceClaimStatus?.attributes === undefined)
    return `its ${where} entry has no attributes`;
  const wanted = list.usb ? 'pciAddress, mDevUUID or usbAddress' : 'pciAddress or mDevUUID';
  return `its ${where} entry's attributes have no ${wanted}`;
}

/**
 * A hostdev for every DRA device of the list, in KubeVirt's order (by kind, then status order). Throws naming the
 * first DRA device the status has no usable attributes for yet: KubeVirt refuses then too (fewer devices built
 * than the spec asks for). A status entry for a device the spec does not have is left alone.
 */
function draDevices(vmi: VirtualMachineInstance, list: DraList): Allocated[] {
  const specDevices: readonly VmiHostDevice[] = vmi.spec.domain.devices[list.spec] ?? [];
  const dra = new Set(specDevices.filter(isDraDevice).map((d) => d.name));
  const byName = new Map<string, Allocated>();
  (vmi.status?.deviceStatus?.[list.status] ?? []).forEach((s, i) => {
    const attributes = s.deviceResourceClaimStatus?.attributes;
    if (!dra.has(s.name) || byName.has(s.name) || attributes === undefined) return;
    const field = `status.deviceStatus.${list.status}[${String(i)}].deviceResourceClaimStatus.attributes`;
    const device = hostDeviceOf(list, s.name, attributes, field);
    if (device !== undefined) byName.set(s.name, { name: s.name, device });
  });
  specDevices.forEach((d, i) => {
    if (!isDraDevice(d) || byName.has(d.name)) return;
    throw new ConversionError(
      `spec.domain.devices.${list.spec}[${String(i)}]`,
      `DRA ${list.noun} ${d.name} has no allocated device yet: ${missingWhy(vmi, list, d.name)}`,
    );
  });
  const rank = (a: Allocated): number => KIND_ORDER.indexOf(a.device.type);
  return [...byName.values()].sort((a, b) => rank(a) - rank(b));
}

type Display = Pick<Extract<HostDevice, { type: 'mdev' }>, 'display' | 'ramfb'>;

/** A vGPU's display as its virtualGPUOptions ask: on unless disabled, with ramfb unless that is disabled. */
function displayOf(gpu: Gpu | undefined): Display {
  const display = gpu?.virtualGPUOptions?.display;
  if (display === undefined || display.enabled === false) return {};
  return display.ramFB?.enabled === false ? { display: 'on' } : { display: 'on', ramfb: 'on' };
}

/**
 * The DRA GPUs, each vGPU with the display its options ask for; when no GPU says anything about a display, the
 * first vGPU is the guest's display, with ramfb (gpu_hostdev.go, DefaultDisplayOn).
 */
function draGpus(vmi: VirtualMachineInstance): HostDevice[] {
  const gpus = vmi.spec.domain.devices.gpus ?? [];
  const allocated = draDevices(vmi, GPUS);
  const anyDisplaySet = gpus.some((g) => g.virtualGPUOptions?.display !== undefined);
  const firstVgpu = allocated.find((a) => a.device.type === 'mdev')?.name;
  const displayFor = (name: string): Display => {
    if (anyDisplaySet) return displayOf(gpus.find((g) => g.name === name));
    return name === firstVgpu ? { display: 'on', ramfb: 'on' } : {};
  };
  return allocated.map(({ name, device }) =>
    device.type === 'mdev' ? { ...device, ...displayFor(name) } : device,
  );
}

export const hostDevicesConfigurator: Configurator = configurator((vmi, domain) => {
  const hostDevices = draDevices(vmi, HOST_DEVICES).map((a) => a.device);
  domain.devices.hostDevices.push(...hostDevices, ...draGpus(vmi));
});
