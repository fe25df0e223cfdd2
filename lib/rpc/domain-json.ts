/**
 * The domain as the handler receives it over GetDomain and Notify: KubeVirt's api.Domain marshalled by Go's
 * encoding/json (kubevirt pkg/virt-launcher/virtwrap/api/schema.go). TypeMeta is inlined (kind "Domain",
 * apiVersion "1.2.2"), the object meta sits under "ObjectMeta", and Spec/Status keep their Go field names
 * because the structs carry only xml tags. The launcher writes it (lib/launcher/report/), the handler
 * reads it; the spec covers what the handler reads (identity, memory, OS, CPU, disks, interfaces, serials,
 * channels, KubeVirt metadata).
 */

export const DOMAIN_API_VERSION = '1.2.2';

/** libvirt's domain states as KubeVirt names them (api.LifeCycle; libvirt's "shutdown" is ShuttingDown). */
export type LifeCycle =
  'NoState' | 'Running' | 'Blocked' | 'Paused' | 'ShuttingDown' | 'Shutoff' | 'Crashed' | 'PMSuspended';

export interface AliasJson {
  Name: string;
  UserDefined?: boolean;
}

export interface DiskJson {
  Device: string;
  Type: string;
  Source: { Dev?: string; File?: string };
  Target: { Bus?: string; Device: string; Tray?: string };
  Serial?: string;
  Driver: { Name: string; Type: string; Cache?: string; ErrorPolicy?: string; IO?: string; Discard?: string };
  ReadOnly?: Record<string, never>;
  Alias: AliasJson;
  BootOrder?: { Order: number };
  Model?: string;
}

/**
 * A host device of the live domain (KubeVirt's api.HostDevice, the fields the handler reads): its alias and the
 * address libvirt gave it in the guest (a USB hostdev: Type usb, Bus, Port).
 */
export interface HostDeviceJson {
  Type: string;
  Alias?: AliasJson;
  Address?: { Type: string; Bus?: string; Port?: string; Domain?: string; Slot?: string; Function?: string };
}

export interface InterfaceJson {
  Type: string;
  Source: Record<string, unknown>;
  Model: { Type: string };
  MAC?: { MAC: string };
  BootOrder?: { Order: number };
  LinkState?: { State: string };
  Driver?: { Name: string; Queues?: number };
  Target?: { Device: string; Managed?: string };
  Alias: AliasJson;
}

/** The guest agent's virtio-serial port (libvirt's, KubeVirt's name). */
export const AGENT_CHANNEL = 'org.qemu.guest_agent.0';

interface ChannelJson {
  Type: string;
  /** State: libvirt's 'connected'/'disconnected' for the agent channel (KubeVirt's AgentConnected reads it). */
  Target: { Name?: string; Type: string; State?: 'connected' | 'disconnected' };
}

interface SerialJson {
  Type: 'unix';
  Target: { Port: number };
  Source: { Mode: 'bind'; Path: string };
  Log?: { File: string; Append: 'on' };
}

export interface DomainSpecJson {
  Type?: string;
  Name: string;
  UUID?: string;
  Memory?: { Value: number; Unit: 'b' };
  OS?: {
    Type: { OS: 'hvm'; Arch: string; Machine: string };
    Kernel?: string;
    Initrd?: string;
    KernelArgs?: string;
  };
  Devices: {
    Interfaces?: InterfaceJson[];
    Channels?: ChannelJson[];
    Disks?: DiskJson[];
    Serials?: SerialJson[];
    HostDevices?: HostDeviceJson[];
  };
  Metadata?: {
    KubeVirt: {
      UID: string;
      GracePeriod: { DeletionGracePeriodSeconds: number };
      /** The source launcher's record of the running or last migration. */
      Migration?: MigrationMetadataJson;
    };
  };
  CPU?: {
    Mode: string;
    Model?: string;
    Features: { Name: string; Policy?: string }[];
    Topology: { Sockets: number; Cores: number; Threads: number };
  };
  VCPU?: { Placement: 'static'; CPUs: number };
}

/**
 * api.MigrationMetadata (schema.go), Go's field names: the migration's uid (the VMIM's), when it started and
 * ended (RFC 3339), whether it failed and why, the abort's state ('Aborting', 'Succeeded', 'Failed': KubeVirt's
 * MigrationAbortStatus) and its mode ('PreCopy', 'PostCopy', 'Paused': MigrationMode).
 */
export interface MigrationMetadataJson {
  UID: string;
  StartTimestamp?: string;
  EndTimestamp?: string;
  Failed?: boolean;
  FailureReason?: string;
  AbortStatus?: 'Aborting' | 'Succeeded' | 'Failed';
  Mode?: 'PreCopy' | 'PostCopy' | 'Paused';
}

export interface GuestOsInfoJson {
  Name: string;
  KernelRelease: string;
  Version: string;
  PrettyName: string;
  VersionId: string;
  KernelVersion: string;
  Machine: string;
  Id: string;
}

/** What GetDomain reports while the agent has told nothing. */
export const EMPTY_GUEST_OS_INFO: Readonly<GuestOsInfoJson> = {
  Name: '',
  KernelRelease: '',
  Version: '',
  PrettyName: '',
  VersionId: '',
  KernelVersion: '',
  Machine: '',
  Id: '',
};

/** api.InterfaceStatus: an interface as the guest agent reports it (Go's field names: the struct has no tags). */
export interface InterfaceStatusJson {
  Mac: string;
  Ip: string;
  IPs: string[];
  /** The interface's name in the guest. */
  InterfaceName: string;
}

interface DomainStatusJson {
  Status: LifeCycle;
  /** api.StateChangeReason, e.g. 'Unknown', 'Booted', 'Destroyed', 'Crashed', 'Migrated'. */
  Reason: string;
  /** What the guest agent says of the guest's interfaces; null while it says nothing. */
  Interfaces: InterfaceStatusJson[] | null;
  OSInfo: GuestOsInfoJson;
  /** 'frozen' or 'thawed' (empty while unknown). */
  FSFreezeStatus: { Status: string };
  ServiceStatus: { VNCSessionConnected: number };
}

export interface DomainJson {
  kind: 'Domain';
  apiVersion: typeof DOMAIN_API_VERSION;
  ObjectMeta: { name: string; namespace: string; uid: string; creationTimestamp: null };
  Spec: DomainSpecJson;
  Status: DomainStatusJson;
}
