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

export function guestAgentInfo(params: Params, agent: AgentFacts = {}): object {
  return {
    guestAgentVersion: agent.version ?? '',
    ...(agent.supportedCommands !== undefined && { supportedCommands: agent.supportedCommands }),
    hostname: str(params, 'hostname'),
    os: {
      name: str(params, 'os.name'),
      kernelRelease: str(params, 'os.kernel-release'),
      version: str(params, 'os.version'),
      prettyName: str(params, 'os.pretty-name'),
      versionId: str(params, 'os.version-id'),
      kernelVersion: str(params, 'os.kernel-version'),
      machine: str(params, 'os.machine'),
      id: str(params, 'os.id'),
    },
    timezone: has(params, 'timezone.name')
      ? `${str(params, 'timezone.name')}, ${num(params, 'timezone.offset')}`
      : '',
    userList: range(num(params, 'user.count')).map((i) => ({
      userName: str(params, `user.${i}.name`),
      domain: str(params, `user.${i}.domain`),
      loginTime: num(params, `user.${i}.login-time`) / 1000,
    })),
    fsInfo: {
      disks: range(num(params, 'fs.count')).map((i) => ({
        diskName: str(params, `fs.${i}.name`),
        mountPoint: str(params, `fs.${i}.mountpoint`),
        fileSystemType: str(params, `fs.${i}.fstype`),
        usedBytes: num(params, `fs.${i}.used-bytes`),
        totalBytes: num(params, `fs.${i}.total-bytes`),
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

export function guestUsers(params: Params): GuestUser[] {
  return range(num(params, 'user.count')).map((i) => {
    const domain = str(params, `user.${i}.domain`);
    const loginTime = num(params, `user.${i}.login-time`) / 1000;
    return {
      userName: str(params, `user.${i}.name`),
      ...(domain !== '' && { domain }),
      ...(loginTime !== 0 && { loginTime }),
    };
  });
}

/** v1.VirtualMachineInstanceFileSystemDisk; serial is `omitempty`. */
interface GuestFilesystemDisk {
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

function block(params: Params, index: number): object {
  const k = (s: string): string => `block.${index}.${s}`;
  return {
    Name: str(params, k('name')),
    NameSet: has(params, k('name')),
    Path: str(params, k('path')),
    ...counter(params, k('rd.reqs'), 'RdReqs'),
    ...counter(params, k('rd.bytes'), 'RdBytes'),
    ...counter(params, k('rd.times'), 'RdTimes'),
    ...counter(params, k('wr.reqs'), 'WrReqs'),
    ...counter(params, k('wr.bytes'), 'WrBytes'),
    ...counter(params, k('wr.times'), 'WrTimes'),
    ...counter(params, k('fl.reqs'), 'FlReqs'),
    ...counter(params, k('allocation'), 'Allocation'),
    ...counter(params, k('capacity'), 'Capacity'),
  };
}

function net(params: Params, index: number): object {
  const k = (s: string): string => `net.${index}.${s}`;
  return {
    Name: str(params, k('name')),
    NameSet: has(params, k('name')),
    ...counter(params, k('rx.bytes'), 'RxBytes'),
    ...counter(params, k('rx.pkts'), 'RxPkts'),
    ...counter(params, k('rx.errs'), 'RxErrs'),
    ...counter(params, k('rx.drop'), 'RxDrop'),
    ...counter(params, k('tx.bytes'), 'TxBytes'),
    ...counter(params, k('tx.pkts'), 'TxPkts'),
    ...counter(params, k('tx.errs'), 'TxErrs'),
    ...counter(params, k('tx.drop'), 'TxDrop'),
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
