/**
 * JSON answers built from libvirt's flat typed parameters. Pure.
 * - guestAgentInfo: kubevirt v1.VirtualMachineInstanceGuestAgentInfo (GetGuestInfo), from
 *   virDomainGetGuestInfo ('os.*', 'hostname', 'timezone.*', 'fs.N.*', 'user.N.*') plus the agent's version
 *   and freeze status.
 * - domainStats: the part of kubevirt's stats.DomainStats that libvirt's bulk stats fill (GetDomainStats).
 * - guestUsers: v1.VirtualMachineInstanceGuestOSUser list (GetUsers) from virDomainGetGuestInfo 'user.N.*'.
 * - guestFilesystems: v1.VirtualMachineInstanceFileSystem list (GetFilesystems) from the agent's
 *   guest-get-fsinfo answer (kubevirt agent-poller parseFilesystem).
 */
import type { TypedValue } from '../../libvirt/index.ts';

type Params = Readonly<Record<string, TypedValue>>;

const str = (p: Params, key: string): string => {
  const v = p[key];
  return v === undefined ? '' : String(v);
};
const num = (p: Params, key: string): number => {
  const v = p[key];
  return typeof v === 'number' ? v : 0;
};
const has = (p: Params, key: string): boolean => p[key] !== undefined;
const range = (n: number): number[] => Array.from({ length: Math.max(0, n) }, (_, i) => i);

export interface AgentFacts {
  readonly version?: string;
  /** 'frozen' | 'thawed' from guest-fsfreeze-status. */
  readonly fsFreezeStatus?: string;
  readonly supportedCommands?: readonly { name: string; enabled: boolean }[];
}

export function guestAgentInfo(p: Params, agent: AgentFacts = {}): object {
  return {
    guestAgentVersion: agent.version ?? '',
    ...(agent.supportedCommands !== undefined && { supportedCommands: agent.supportedCommands }),
    hostname: str(p, 'hostname'),
    os: {
      name: str(p, 'os.name'),
      kernelRelease: str(p, 'os.kernel-release'),
      version: str(p, 'os.version'),
      prettyName: str(p, 'os.pretty-name'),
      versionId: str(p, 'os.version-id'),
      kernelVersion: str(p, 'os.kernel-version'),
      machine: str(p, 'os.machine'),
      id: str(p, 'os.id'),
    },
    timezone: has(p, 'timezone.name') ? `${str(p, 'timezone.name')}, ${num(p, 'timezone.offset')}` : '',
    userList: range(num(p, 'user.count')).map((i) => ({
      userName: str(p, `user.${i}.name`),
      domain: str(p, `user.${i}.domain`),
      loginTime: num(p, `user.${i}.login-time`) / 1000,
    })),
    fsInfo: {
      disks: range(num(p, 'fs.count')).map((i) => ({
        diskName: str(p, `fs.${i}.name`),
        mountPoint: str(p, `fs.${i}.mountpoint`),
        fileSystemType: str(p, `fs.${i}.fstype`),
        usedBytes: num(p, `fs.${i}.used-bytes`),
        totalBytes: num(p, `fs.${i}.total-bytes`),
      })),
    },
    fsFreezeStatus: agent.fsFreezeStatus ?? '',
  };
}

/** v1.VirtualMachineInstanceGuestOSUser; domain and loginTime are `omitempty`. */
export interface GuestUser {
  readonly userName: string;
  readonly domain?: string;
  /** Seconds since the epoch (libvirt gives milliseconds). */
  readonly loginTime?: number;
}

export function guestUsers(p: Params): GuestUser[] {
  return range(num(p, 'user.count')).map((i) => {
    const domain = str(p, `user.${i}.domain`);
    const loginTime = num(p, `user.${i}.login-time`) / 1000;
    return {
      userName: str(p, `user.${i}.name`),
      ...(domain !== '' && { domain }),
      ...(loginTime !== 0 && { loginTime }),
    };
  });
}

/** v1.VirtualMachineInstanceFileSystemDisk; serial is `omitempty`. */
export interface GuestFilesystemDisk {
  readonly serial?: string;
  readonly busType: string;
}

/** v1.VirtualMachineInstanceFileSystem; disk is `omitempty`. */
export interface GuestFilesystem {
  readonly diskName: string;
  readonly mountPoint: string;
  readonly fileSystemType: string;
  readonly usedBytes: number;
  readonly totalBytes: number;
  readonly disk?: readonly GuestFilesystemDisk[];
}

type Json = Readonly<Record<string, unknown>>;
const field = (o: Json, key: string): string => (typeof o[key] === 'string' ? o[key] : '');
const int = (o: Json, key: string): number => (typeof o[key] === 'number' ? Math.trunc(o[key]) : 0);
const objects = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];

function fsDisk(d: Json): GuestFilesystemDisk {
  const serial = field(d, 'serial');
  return { ...(serial !== '' && { serial }), busType: field(d, 'bus-type') };
}

/** The `return` value of guest-get-fsinfo (an array of GuestFilesystemInfo); anything else gives []. */
export function guestFilesystems(agentReturn: unknown): GuestFilesystem[] {
  return objects(agentReturn).map((fs) => {
    const disk = objects(fs['disk']).map(fsDisk);
    return {
      diskName: field(fs, 'name'),
      mountPoint: field(fs, 'mountpoint'),
      fileSystemType: field(fs, 'type'),
      usedBytes: int(fs, 'used-bytes'),
      totalBytes: int(fs, 'total-bytes'),
      ...(disk.length > 0 && { disk }),
    };
  });
}

/** A value with Go's `<Field>Set` companion, as stats.DomainStats writes every optional counter. */
function counter(p: Params, key: string, field: string): Record<string, number | boolean> {
  return { [field]: num(p, key), [`${field}Set`]: has(p, key) };
}

function block(p: Params, i: number): object {
  const k = (s: string): string => `block.${i}.${s}`;
  return {
    Name: str(p, k('name')),
    NameSet: has(p, k('name')),
    Path: str(p, k('path')),
    ...counter(p, k('rd.reqs'), 'RdReqs'),
    ...counter(p, k('rd.bytes'), 'RdBytes'),
    ...counter(p, k('rd.times'), 'RdTimes'),
    ...counter(p, k('wr.reqs'), 'WrReqs'),
    ...counter(p, k('wr.bytes'), 'WrBytes'),
    ...counter(p, k('wr.times'), 'WrTimes'),
    ...counter(p, k('fl.reqs'), 'FlReqs'),
    ...counter(p, k('allocation'), 'Allocation'),
    ...counter(p, k('capacity'), 'Capacity'),
  };
}

function net(p: Params, i: number): object {
  const k = (s: string): string => `net.${i}.${s}`;
  return {
    Name: str(p, k('name')),
    NameSet: has(p, k('name')),
    ...counter(p, k('rx.bytes'), 'RxBytes'),
    ...counter(p, k('rx.pkts'), 'RxPkts'),
    ...counter(p, k('rx.errs'), 'RxErrs'),
    ...counter(p, k('rx.drop'), 'RxDrop'),
    ...counter(p, k('tx.bytes'), 'TxBytes'),
    ...counter(p, k('tx.pkts'), 'TxPkts'),
    ...counter(p, k('tx.errs'), 'TxErrs'),
    ...counter(p, k('tx.drop'), 'TxDrop'),
  };
}

export function domainStats(o: { name: string; uuid: string; params: Params }): object {
  const p = o.params;
  return {
    Name: o.name,
    UUID: o.uuid,
    Cpu: {
      ...counter(p, 'cpu.time', 'Time'),
      ...counter(p, 'cpu.user', 'User'),
      ...counter(p, 'cpu.system', 'System'),
    },
    Memory: {
      ...counter(p, 'balloon.current', 'ActualBalloon'),
      ...counter(p, 'balloon.maximum', 'Maximum'),
      ...counter(p, 'balloon.rss', 'RSS'),
      ...counter(p, 'balloon.available', 'Available'),
      ...counter(p, 'balloon.unused', 'Unused'),
      ...counter(p, 'balloon.usable', 'Usable'),
    },
    Vcpu: range(num(p, 'vcpu.current')).map((i) => ({
      ...counter(p, `vcpu.${i}.state`, 'State'),
      ...counter(p, `vcpu.${i}.time`, 'Time'),
    })),
    Block: range(num(p, 'block.count')).map((i) => block(p, i)),
    Net: range(num(p, 'net.count')).map((i) => net(p, i)),
    NrVirtCpu: num(p, 'vcpu.current'),
  };
}
