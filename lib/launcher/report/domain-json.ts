/**
 * The domain report the handler receives over GetDomain and Notify, in KubeVirt's api.Domain JSON shape (the
 * type is the contract in lib/rpc/domain-json.ts), built from the converter's DomainSpec and the domain's
 * state. Pure.
 */
import type { Alias, Disk, DomainSpec, Interface } from '../converter/index.ts';
import {
  DOMAIN_API_VERSION,
  type AliasJson,
  type DiskJson,
  type DomainJson,
  type DomainSpecJson,
  type GuestOsInfoJson,
  type InterfaceJson,
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
}

const EMPTY_OS_INFO: GuestOsInfoJson = {
  Name: '',
  KernelRelease: '',
  Version: '',
  PrettyName: '',
  VersionId: '',
  KernelVersion: '',
  Machine: '',
  Id: '',
};

const aliasJson = (a: Alias): AliasJson => ({ Name: a.name, UserDefined: a.userDefined });

function diskJson(d: Disk): DiskJson {
  return {
    Device: d.device,
    Type: d.type,
    Source: {
      ...(d.source.dev !== undefined && { Dev: d.source.dev }),
      ...(d.source.file !== undefined && { File: d.source.file }),
    },
    Target: {
      Bus: d.target.bus,
      Device: d.target.dev,
      ...(d.target.tray !== undefined && { Tray: d.target.tray }),
    },
    ...(d.serial !== undefined && { Serial: d.serial }),
    Driver: {
      Name: d.driver.name,
      Type: d.driver.type,
      ...(d.driver.cache !== undefined && { Cache: d.driver.cache }),
      ...(d.driver.errorPolicy !== undefined && { ErrorPolicy: d.driver.errorPolicy }),
      ...(d.driver.io !== undefined && { IO: d.driver.io }),
      ...(d.driver.discard !== undefined && { Discard: d.driver.discard }),
    },
    ...(d.readonly && { ReadOnly: {} }),
    Alias: aliasJson(d.alias),
    ...(d.bootOrder !== undefined && { BootOrder: { Order: d.bootOrder } }),
    ...(d.model !== undefined && { Model: d.model }),
  };
}

function interfaceJson(i: Interface): InterfaceJson {
  return {
    Type: i.type,
    Source: {},
    Model: { Type: i.model },
    ...(i.mac !== undefined && { MAC: { MAC: i.mac } }),
    ...(i.bootOrder !== undefined && { BootOrder: { Order: i.bootOrder } }),
    ...(i.linkState !== undefined && { LinkState: { State: i.linkState } }),
    Alias: aliasJson(i.alias),
  };
}

/** Spec in api.DomainSpec's JSON shape. */
export function domainSpecJson(d: DomainSpec): DomainSpecJson {
  const os = d.os;
  return {
    Type: d.type,
    Name: d.name,
    ...(d.uuid !== undefined && { UUID: d.uuid }),
    Memory: { Value: d.memory, Unit: 'b' },
    OS: {
      Type: { OS: 'hvm', Arch: os.type.arch, Machine: os.type.machine },
      ...(os.kernel !== undefined && { Kernel: os.kernel }),
      ...(os.initrd !== undefined && { Initrd: os.initrd }),
      ...(os.cmdline !== undefined && { KernelArgs: os.cmdline }),
    },
    Devices: {
      Interfaces: d.devices.interfaces.map(interfaceJson),
      Channels: d.devices.channels.map((c) => ({
        Type: c.type,
        Target: { Name: c.target.name, Type: c.target.type },
      })),
      Disks: d.devices.disks.map(diskJson),
      Serials: d.devices.serials.map((s) => ({
        Type: 'unix',
        Target: { Port: s.port },
        Source: { Mode: 'bind', Path: s.socket },
        ...(s.logFile !== undefined && { Log: { File: s.logFile, Append: 'on' } }),
      })),
    },
    Metadata: {
      KubeVirt: {
        UID: d.metadata.uid,
        GracePeriod: { DeletionGracePeriodSeconds: d.metadata.gracePeriodSeconds },
      },
    },
    CPU: {
      Mode: d.cpu.mode,
      ...(d.cpu.model !== undefined && { Model: d.cpu.model }),
      Features: d.cpu.features.map((f) => ({
        Name: f.name,
        ...(f.policy !== undefined && { Policy: f.policy }),
      })),
      Topology: {
        Sockets: d.cpu.topology.sockets,
        Cores: d.cpu.topology.cores,
        Threads: d.cpu.topology.threads,
      },
    },
    VCPU: { Placement: 'static', CPUs: d.vcpu },
  };
}

/** The whole api.Domain; spec may be absent (a domain we know only by name, e.g. once deleted). */
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
    Spec: spec === undefined ? { Name: `${id.namespace}_${id.name}`, Devices: {} } : domainSpecJson(spec),
    Status: {
      Status: state.status,
      Reason: state.reason,
      Interfaces: null,
      OSInfo: { ...EMPTY_OS_INFO, ...extras.osInfo },
      FSFreezeStatus: { Status: extras.fsFreezeStatus ?? '' },
      ServiceStatus: { VNCSessionConnected: 0 },
    },
  };
}
