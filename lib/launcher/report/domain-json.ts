/**
 * The domain report the handler receives over GetDomain and Notify, in KubeVirt's api.Domain JSON shape (the
 * type is the contract in lib/rpc/domain-json.ts), built from the converter's DomainSpec and the domain's
 * state. Pure.
 */
import type { Alias, Disk, DomainSpec, Interface } from '../converter/index.ts';
import {
  AGENT_CHANNEL,
  DOMAIN_API_VERSION,
  type AliasJson,
  type DiskJson,
  type DomainJson,
  type DomainSpecJson,
  EMPTY_GUEST_OS_INFO,
  type GuestOsInfoJson,
  type HostDeviceJson,
  type InterfaceStatusJson,
  type InterfaceJson,
  type MigrationMetadataJson,
} from '../../rpc/index.ts';
import type { KubevirtState } from './state.ts';

export interface DomainIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

export interface DomainStatusExtras {
  /** 'frozen' or 'thawed' (empty while unknown). */
  readonly fsFreezeStatus?: string;
  readonly osInfo?: Partial<GuestOsInfoJson>;
  /** The guest's interfaces as the agent last reported them. */
  readonly interfaces?: readonly InterfaceStatusJson[];
  /** The guest agent's channel: connected once the agent in the guest answers libvirt. */
  readonly agentConnected?: boolean;
  /** The live domain's host devices (live-host-devices.ts). */
  readonly hostDevices?: readonly HostDeviceJson[];
  /** The running or last migration of this domain (migration/metadata.ts). */
  readonly migration?: MigrationMetadataJson | undefined;
}

const aliasJson = (a: Alias): AliasJson => ({ Name: a.name, UserDefined: a.userDefined });

function diskJson(disk: Disk): DiskJson {
  return {
    Device: disk.device,
    Type: disk.type,
    Source: {
      ...(disk.source.dev !== undefined && { Dev: disk.source.dev }),
      ...(disk.source.file !== undefined && { File: disk.source.file }),
    },
    Target: {
      Bus: disk.target.bus,
      Device: disk.target.dev,
      ...(disk.target.tray !== undefined && { Tray: disk.target.tray }),
    },
    ...(disk.serial !== undefined && { Serial: disk.serial }),
    Driver: {
      Name: disk.driver.name,
      Type: disk.driver.type,
      ...(disk.driver.cache !== undefined && { Cache: disk.driver.cache }),
      ...(disk.driver.errorPolicy !== undefined && { ErrorPolicy: disk.driver.errorPolicy }),
      ...(disk.driver.io !== undefined && { IO: disk.driver.io }),
      ...(disk.driver.discard !== undefined && { Discard: disk.driver.discard }),
    },
    ...(disk.readonly && { ReadOnly: {} }),
    Alias: aliasJson(disk.alias),
    ...(disk.bootOrder !== undefined && { BootOrder: { Order: disk.bootOrder } }),
    ...(disk.model !== undefined && { Model: disk.model }),
  };
}

function interfaceJson(iface: Interface): InterfaceJson {
  return {
    Type: iface.type,
    Source: {},
    Model: { Type: iface.model },
    ...(iface.mac !== undefined && { MAC: { MAC: iface.mac } }),
    ...(iface.bootOrder !== undefined && { BootOrder: { Order: iface.bootOrder } }),
    ...(iface.linkState !== undefined && { LinkState: { State: iface.linkState } }),
    ...(iface.driver !== undefined && { Driver: { Name: iface.driver.name, Queues: iface.driver.queues } }),
    ...(iface.target !== undefined && {
      Target: { Device: iface.target.dev, Managed: iface.target.managed },
    }),
    Alias: aliasJson(iface.alias),
  };
}

/** Spec in api.DomainSpec's JSON shape. */
function domainSpecJson(domainSpec: DomainSpec, agentConnected = false): DomainSpecJson {
  const os = domainSpec.os;
  return {
    Type: domainSpec.type,
    Name: domainSpec.name,
    ...(domainSpec.uuid !== undefined && { UUID: domainSpec.uuid }),
    // The boot memory and what the virtio-mem device was asked to hold (KubeVirt reads libvirt's currentMemory).
    Memory: { Value: domainSpec.memory + (domainSpec.devices.memory?.requestedBytes ?? 0), Unit: 'b' },
    OS: {
      Type: { OS: 'hvm', Arch: os.type.arch, Machine: os.type.machine },
      ...(os.kernel !== undefined && { Kernel: os.kernel }),
      ...(os.initrd !== undefined && { Initrd: os.initrd }),
      ...(os.cmdline !== undefined && { KernelArgs: os.cmdline }),
    },
    Devices: {
      Interfaces: domainSpec.devices.interfaces.map(interfaceJson),
      Channels: domainSpec.devices.channels.map((c) => ({
        Type: c.type,
        Target: {
          Name: c.target.name,
          Type: c.target.type,
          ...(c.target.name === AGENT_CHANNEL && { State: agentConnected ? 'connected' : 'disconnected' }),
        },
      })),
      Disks: domainSpec.devices.disks.map(diskJson),
      Serials: domainSpec.devices.serials.map((s) => ({
        Type: 'unix',
        Target: { Port: s.port },
        Source: { Mode: 'bind', Path: s.socket },
        ...(s.logFile !== undefined && { Log: { File: s.logFile, Append: 'on' } }),
      })),
    },
    Metadata: {
      KubeVirt: {
        UID: domainSpec.metadata.uid,
        GracePeriod: { DeletionGracePeriodSeconds: domainSpec.metadata.gracePeriodSeconds },
      },
    },
    CPU: {
      Mode: domainSpec.cpu.mode,
      ...(domainSpec.cpu.model !== undefined && { Model: domainSpec.cpu.model }),
      Features: domainSpec.cpu.features.map((f) => ({
        Name: f.name,
        ...(f.policy !== undefined && { Policy: f.policy }),
      })),
      Topology: {
        Sockets: domainSpec.cpu.topology.sockets,
        Cores: domainSpec.cpu.topology.cores,
        Threads: domainSpec.cpu.topology.threads,
      },
    },
    VCPU: { Placement: 'static', CPUs: domainSpec.vcpu },
  };
}

/** The machine type in a domain's XML as libvirt holds it (`<type machine='pc-q35-7.2'>`); undefined if none. */
export function definedMachine(xml: string): string | undefined {
  const m = /<type\b[^>]*\smachine=(?:'([^']+)'|"([^"]+)")/.exec(xml);
  return m?.[1] ?? m?.[2];
}

/** The spec with this machine type (when given) in place of the one asked for. */
export function withMachine(spec: DomainSpec, machine: string | undefined): DomainSpec {
  if (machine === undefined || machine === spec.os.type.machine) return spec;
  return { ...spec, os: { ...spec.os, type: { ...spec.os.type, machine } } };
}

/** The whole api.Domain; spec may be absent (a domain we know only by name, e.g. once deleted). */
function specJson(
  id: DomainIdentity,
  spec: DomainSpec | undefined,
  extras: DomainStatusExtras,
): DomainSpecJson {
  if (spec === undefined) return { Name: `${id.namespace}_${id.name}`, Devices: {} };
  const out = domainSpecJson(spec, extras.agentConnected);
  if ((extras.hostDevices?.length ?? 0) > 0) out.Devices.HostDevices = [...(extras.hostDevices ?? [])];
  if (extras.migration !== undefined && out.Metadata !== undefined)
    out.Metadata.KubeVirt.Migration = { ...extras.migration };
  return out;
}

export function domainJson(o: {
  id: DomainIdentity;
  spec: DomainSpec | undefined;
  state: KubevirtState;
  extras?: DomainStatusExtras;
}): DomainJson {
  const { id, spec, state, extras = {} } = o;
  return {
    kind: 'Domain',
    apiVersion: DOMAIN_API_VERSION,
    ObjectMeta: { name: id.name, namespace: id.namespace, uid: id.uid, creationTimestamp: null },
    Spec: specJson(id, spec, extras),
    Status: {
      Status: state.status,
      Reason: state.reason,
      Interfaces:
        extras.interfaces !== undefined && extras.interfaces.length > 0 ? [...extras.interfaces] : null,
      OSInfo: { ...EMPTY_GUEST_OS_INFO, ...extras.osInfo },
      FSFreezeStatus: { Status: extras.fsFreezeStatus ?? '' },
      ServiceStatus: { VNCSessionConnected: 0 },
    },
  };
}
