/**
 * What one SyncVirtualMachine has to do (kubevirt virtwrap/manager.go SyncVMI), decided from what libvirt has
 * and what the VMI asks for. Pure:
 * - no domain: define it and start it;
 * - a domain that is down: start it again (redefined when its XML changed) unless the VMI already ran
 *   (phase Running) or is final: a guest that stopped by itself stays stopped, the handler reports it;
 * - a paused domain that no one paused on purpose: resume it;
 * - a running or paused domain: attach the disks the VMI gained and detach those it lost (hotplug), and the
 *   same for its DRA host devices (the Deckhouse fork's addresourceclaim); a DRA host device whose XML changed
 *   is detached and attached again. Other host devices are never hotplugged.
 */
import { DRA_GPU_ALIAS_PREFIX, DRA_HOST_DEVICE_ALIAS_PREFIX } from '../../kubevirt/index.ts';
import type { DomainStateName } from '../../libvirt/index.ts';
import type { Disk, HostDevice } from '../converter/index.ts';
import { hostDeviceXml } from './device-xml.ts';

export interface SyncInput {
  /** libvirt's state of the domain, undefined when it is not defined. */
  readonly state: DomainStateName | 'unknown' | undefined;
  /** XML the domain was defined with (ours, not libvirt's), undefined when unknown. */
  readonly appliedXml: string | undefined;
  readonly wantedXml: string;
  readonly appliedDisks: readonly Disk[];
  readonly wantedDisks: readonly Disk[];
  readonly appliedHostDevices: readonly HostDevice[];
  readonly wantedHostDevices: readonly HostDevice[];
  /** status.phase of the VMI. */
  readonly vmiPhase: string | undefined;
  /** Paused through PauseVirtualMachine (and not unpaused since). */
  readonly pausedByUser: boolean;
}

export interface SyncPlan {
  readonly define: boolean;
  readonly start: boolean;
  readonly resume: boolean;
  readonly attach: readonly Disk[];
  readonly detach: readonly Disk[];
  /** Detached before any is attached: a changed one leaves under its alias and comes back under it. */
  readonly detachHostDevices: readonly HostDevice[];
  readonly attachHostDevices: readonly HostDevice[];
}

const DOWN: ReadonlySet<string> = new Set(['shutoff', 'crashed', 'nostate', 'unknown']);
const FINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);
const NOTHING: SyncPlan = {
  define: false,
  start: false,
  resume: false,
  attach: [],
  detach: [],
  detachHostDevices: [],
  attachHostDevices: [],
};

export function isDown(state: DomainStateName | 'unknown'): boolean {
  return DOWN.has(state);
}

/** Disks keyed by alias: the ones to attach (new aliases) and to detach (aliases gone). */
export function diskDiff(
  applied: readonly Disk[],
  wanted: readonly Disk[],
): { attach: Disk[]; detach: Disk[] } {
  const key = (d: Disk): string => d.alias.name;
  const had = new Set(applied.map(key));
  const want = new Set(wanted.map(key));
  return {
    attach: wanted.filter((d) => !had.has(key(d))),
    detach: applied.filter((d) => !want.has(key(d))),
  };
}

/** A host device allocated through DRA: its alias is KubeVirt's `ua-dra-hostdevice-…` or `ua-dra-gpu-…`. */
function isDra(h: HostDevice): boolean {
  const prefixes = [DRA_HOST_DEVICE_ALIAS_PREFIX, DRA_GPU_ALIAS_PREFIX];
  return h.alias.userDefined && prefixes.some((p) => h.alias.name.startsWith(p));
}

/**
 * DRA host devices keyed by alias: the ones to detach (aliases gone, or whose XML changed) and to attach (new
 * aliases, or whose XML changed).
 */
function hostDeviceDiff(
  applied: readonly HostDevice[],
  wanted: readonly HostDevice[],
): { detach: HostDevice[]; attach: HostDevice[] } {
  const had = new Map(applied.filter(isDra).map((h) => [h.alias.name, hostDeviceXml(h)]));
  const want = new Map(wanted.filter(isDra).map((h) => [h.alias.name, hostDeviceXml(h)]));
  return {
    detach: applied.filter((h) => isDra(h) && want.get(h.alias.name) !== had.get(h.alias.name)),
    attach: wanted.filter((h) => isDra(h) && had.get(h.alias.name) !== want.get(h.alias.name)),
  };
}

export function planSync(syncInput: SyncInput): SyncPlan {
  if (syncInput.state === undefined) return { ...NOTHING, define: true, start: true };
  if (isDown(syncInput.state)) {
    const ran =
      syncInput.vmiPhase === 'Running' ||
      (syncInput.vmiPhase !== undefined && FINAL_PHASES.has(syncInput.vmiPhase));
    if (ran) return NOTHING;
    return { ...NOTHING, define: syncInput.appliedXml !== syncInput.wantedXml, start: true };
  }
  const { attach, detach } = diskDiff(syncInput.appliedDisks, syncInput.wantedDisks);
  const hostDevices = hostDeviceDiff(syncInput.appliedHostDevices, syncInput.wantedHostDevices);
  const resume = syncInput.state === 'paused' && !syncInput.pausedByUser;
  return {
    define: false,
    start: false,
    resume,
    attach,
    detach,
    detachHostDevices: hostDevices.detach,
    attachHostDevices: hostDevices.attach,
  };
}
