/**
 * The libvirt domain the converter builds: a typed subset of libvirt's domain XML with the pieces KubeVirt's
 * converter sets (kubevirt pkg/virt-launcher/virtwrap/api/schema.go). Plain data: configurators fill it in,
 * domain-xml.ts writes it out.
 */

/** A device alias; user-defined ones (named after a VMI device) are written with KubeVirt's `ua-` prefix. */
export interface Alias {
  readonly name: string;
  readonly userDefined: boolean;
}

export function userAlias(name: string): Alias {
  return { name, userDefined: true };
}

interface DriveAddress {
  readonly type: 'drive';
  readonly controller: number;
  readonly bus: number;
  readonly unit: number;
}

export interface PciAddress {
  readonly type: 'pci';
  /** Hex strings with their 0x prefix, as libvirt writes them. */
  readonly domain: string;
  readonly bus: string;
  readonly slot: string;
  readonly function: string;
}

export type Address = DriveAddress | PciAddress;

interface Reservations {
  readonly managed: 'no';
  readonly source: { readonly type: 'unix'; readonly path: string; readonly mode: 'client' };
}

export interface DiskSource {
  dev?: string;
  file?: string;
  reservations?: Reservations;
}

export type ImageFormat = 'raw' | 'qcow2';

export interface DiskDriver {
  name: 'qemu';
  type: ImageFormat;
  cache?: string;
  errorPolicy?: string;
  io?: string;
  queues?: number;
  discard?: 'unmap';
  /** The IOThread serving the disk (a virtio disk, with IOThreads on). */
  iothread?: number;
}

export interface BackingStore {
  readonly type: 'file' | 'block';
  readonly format: ImageFormat;
  readonly source: DiskSource;
}

export interface Disk {
  device: 'disk' | 'cdrom' | 'lun';
  type: 'file' | 'block';
  /** virtio-(non-)transitional for virtio disks. */
  model?: string;
  source: DiskSource;
  target: { bus: string; dev: string; tray?: string };
  serial?: string;
  driver: DiskDriver;
  readonly: boolean;
  shareable: boolean;
  alias: Alias;
  backingStore?: BackingStore;
  bootOrder?: number;
  address?: Address;
  blockIo?: { readonly logical: number; readonly physical: number };
}

export interface Interface {
  type: 'ethernet';
  model: string;
  mac?: string;
  /** `<mtu size>`: the MTU of the Pod interface link the tap stands for. */
  mtu?: number;
  /** The tap the handler made in the Pod's network namespace; libvirt opens it and leaves it be. */
  target?: { readonly dev: string; readonly managed: 'no' };
  alias: Alias;
  bootOrder?: number;
  linkState?: 'down';
  driver?: { readonly name: 'vhost'; readonly queues: number };
  romEnabled?: 'no';
  acpiIndex?: number;
  address?: PciAddress;
}

export interface Controller {
  readonly type: 'usb' | 'scsi' | 'virtio-serial';
  readonly index: number;
  readonly model: string;
  readonly driver?: { readonly iothread: number; readonly queues: number };
}

interface Channel {
  readonly type: 'unix';
  /** A socket QEMU listens on (bind); without one libvirt picks the path. */
  readonly source?: { readonly mode: 'bind'; readonly path: string };
  readonly target: { readonly name: string; readonly type: 'virtio' };
}

export interface Video {
  readonly type: string;
  readonly heads?: number;
  readonly vram?: number;
}

interface VncGraphics {
  readonly type: 'vnc';
  readonly socket: string;
}

export interface Input {
  readonly type: 'tablet' | 'keyboard';
  readonly bus: 'usb' | 'virtio';
  readonly model?: 'virtio';
  readonly alias?: Alias;
}

interface Serial {
  readonly port: number;
  readonly socket: string;
  readonly logFile?: string;
}

interface Console {
  readonly type: 'pty';
  readonly targetType: 'serial';
  readonly port: number;
}

interface MemBalloon {
  readonly model: string;
  readonly statsPeriod?: number;
  readonly freePageReporting?: 'on' | 'off';
}

interface Rng {
  readonly model: string;
  readonly backend: { readonly model: 'random'; readonly source: string };
}

/** `<tpm>`: an swtpm-backed TPM 2.0 (KubeVirt api.TPM). */
interface Tpm {
  readonly model: 'tpm-tis' | 'tpm-crb';
  readonly backend: { readonly type: 'emulator'; readonly version: '2.0'; readonly persistentState?: 'yes' };
}

interface Watchdog {
  readonly model: 'i6300esb' | 'diag288';
  readonly action: string;
  readonly alias: Alias;
}

/**
 * A virtiofs share (`<filesystem type="mount">`): QEMU connects to the vhost-user socket of a virtiofsd the
 * launcher Pod runs in a container of its own.
 */
interface Filesystem {
  /** vhost-user socket of the filesystem's virtiofsd. */
  readonly socket: string;
  /** The mount tag the guest mounts it by (the VMI filesystem's name). */
  readonly target: string;
  readonly queue: number;
}

/**
 * `<hostdev mode="subsystem">` (KubeVirt api.HostDevice): a host PCI function QEMU takes over through VFIO, the
 * device already bound to vfio-pci by its driver (managed="no"); a mediated device by its UUID, optionally the
 * guest's display (with a ramfb boot framebuffer); or a host USB device by its bus and device number.
 */
export type HostDevice =
  | { readonly type: 'pci'; readonly source: PciAddress; readonly alias: Alias }
  | {
      readonly type: 'mdev';
      readonly uuid: string;
      readonly display?: 'on';
      readonly ramfb?: 'on';
      readonly alias: Alias;
    }
  | { readonly type: 'usb'; readonly bus: number; readonly device: number; readonly alias: Alias };

export interface Devices {
  interfaces: Interface[];
  channels: Channel[];
  /** Passed-through host devices: the VMI's host devices, then its GPUs. */
  hostDevices: HostDevice[];
  controllers: Controller[];
  video: Video[];
  graphics: VncGraphics[];
  memBalloon?: MemBalloon;
  disks: Disk[];
  inputs: Input[];
  serials: Serial[];
  consoles: Console[];
  watchdogs: Watchdog[];
  rng?: Rng;
  filesystems?: Filesystem[];
  tpm?: Tpm;
  /** The virtio-mem device memory hotplug grows the guest through. */
  memory?: VirtioMem;
}

interface Loader {
  readonly path: string;
  readonly readonly: 'yes';
  readonly secure: 'yes' | 'no';
  readonly type: 'pflash';
}

export interface Os {
  type: { arch: string; machine: string };
  smbiosMode?: 'sysinfo';
  bootMenu?: { readonly enable: 'yes'; readonly timeoutMs: number };
  biosUseSerial?: boolean;
  loader?: Loader;
  nvram?: { readonly template: string; readonly path: string };
  kernel?: string;
  initrd?: string;
  cmdline?: string;
}

export interface SysInfoEntry {
  readonly name: string;
  readonly value: string;
}

export interface SysInfo {
  system: SysInfoEntry[];
  chassis: SysInfoEntry[];
}

export interface Timer {
  readonly name: string;
  readonly tickPolicy?: string;
  readonly present?: 'yes' | 'no';
  readonly track?: string;
}

export interface Clock {
  readonly offset?: 'utc' | 'timezone';
  readonly timezone?: string;
  readonly adjustment?: string;
  readonly timers: readonly Timer[];
}

/** on/off state of a Hyper-V enlightenment or another switchable feature. */
export type OnOff = 'on' | 'off';

export interface Hyperv {
  mode?: 'passthrough';
  relaxed?: OnOff;
  vapic?: OnOff;
  spinlocks?: { readonly state: OnOff; readonly retries?: number };
  vpindex?: OnOff;
  runtime?: OnOff;
  synic?: OnOff;
  stimer?: { readonly state: OnOff; readonly direct?: OnOff };
  reset?: OnOff;
  vendorId?: { readonly state: OnOff; readonly value?: string };
  frequencies?: OnOff;
  reenlightenment?: OnOff;
  tlbflush?: OnOff;
  ipi?: OnOff;
  evmcs?: OnOff;
}

export interface Features {
  acpi: boolean;
  apic: boolean;
  hyperv?: Hyperv;
  smm: boolean;
  kvmHidden?: OnOff;
  pvspinlock?: OnOff;
  vmport?: OnOff;
}

export interface CpuFeature {
  readonly name: string;
  readonly policy?: string;
}

export interface Cpu {
  mode: 'host-model' | 'host-passthrough' | 'custom';
  model?: string;
  features: CpuFeature[];
  topology: { sockets: number; cores: number; threads: number };
  /** Guest NUMA cells (`<numa>`): the one node memory hotplug needs. */
  numa?: NumaCell[];
}

export interface NumaCell {
  readonly id: number;
  /** vCPU ids, as libvirt writes a set ("0-31"). */
  readonly cpus: string;
  readonly memoryKiB: number;
}

/** A virtio-mem device (`<memory model="virtio-mem">`); sizes in bytes, on NUMA node `node`. */
export interface VirtioMem {
  /** How far it can grow: maxGuest less the boot memory. */
  readonly sizeBytes: number;
  readonly node: number;
  /** The granularity QEMU plugs memory in. */
  readonly blockBytes: number;
  /** What the guest is asked to have plugged: the guest memory less the boot memory. */
  readonly requestedBytes: number;
}

export interface MaxMemory {
  readonly bytes: number;
  /** DIMM slots QEMU reserves (`slots`). */
  readonly slots: number;
}

/**
 * `<memoryBacking>`: hugepages of the size the launcher Pod's hugetlbfs has (no `<page>`: libvirt's default
 * size, which is that mount's), shared access for virtiofs, and memfd as the memory source.
 */
export interface MemoryBacking {
  hugepages?: boolean;
  source?: 'memfd';
  access?: 'shared';
}

export interface VcpuEntry {
  readonly id: number;
  readonly enabled: 'yes' | 'no';
  readonly hotpluggable: 'yes' | 'no';
}

interface KubevirtMetadata {
  uid: string;
  gracePeriodSeconds: number;
}

export interface DomainSpec {
  /** kvm, or qemu when the guest runs under TCG emulation. */
  type: 'kvm' | 'qemu';
  name: string;
  uuid?: string;
  /** Guest memory in bytes. */
  memory: number;
  /** Memory hotplug ceiling (`<maxMemory>`), when the guest may grow to more memory. */
  maxMemory?: MaxMemory;
  memoryBacking?: MemoryBacking;
  os: Os;
  sysinfo: SysInfo;
  devices: Devices;
  clock?: Clock;
  metadata: KubevirtMetadata;
  features?: Features;
  cpu: Cpu;
  /** vCPUs the domain may have (the maximum when CPU hotplug is possible). */
  vcpu: number;
  /** Per-vCPU state when CPU hotplug is possible. */
  vcpus?: VcpuEntry[];
  /** IOThreads the domain has (`<iothreads>`), when the VMI asks for any. */
  ioThreads?: number;
}

/** No device of any kind. */
export function emptyDevices(): Devices {
  return {
    interfaces: [],
    channels: [],
    hostDevices: [],
    controllers: [],
    video: [],
    graphics: [],
    disks: [],
    inputs: [],
    serials: [],
    consoles: [],
    watchdogs: [],
  };
}

/** A domain with nothing set yet; configurators fill it in. */
export function emptyDomain(): DomainSpec {
  return {
    type: 'kvm',
    name: '',
    memory: 0,
    os: { type: { arch: '', machine: '' } },
    sysinfo: { system: [], chassis: [] },
    devices: emptyDevices(),
    metadata: { uid: '', gracePeriodSeconds: 0 },
    cpu: { mode: 'host-model', features: [], topology: { sockets: 1, cores: 1, threads: 1 } },
    vcpu: 1,
  };
}
