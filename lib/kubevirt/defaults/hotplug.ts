/**
 * Hotplug headroom under the LiveUpdate rollout strategy: cpu.maxSockets and memory.maxGuest, so a running VM
 * can later grow up to them (KubeVirt's setupHotplug; not on arm64).
 */
import { formatBinaryQuantity, parseQuantity } from '../quantity.ts';
import type { Quantity } from '../schema/dsl.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { ClusterDefaults } from './cluster.ts';

type Spec = VirtualMachineInstanceSpec;

/**
 * KubeVirt's upper bound of vCPUs for any machine type ("Each machine type will have different maximum for
 * vcpus, lets choose 512 as upper bound", pkg/defaults setupCPUHotplug).
 */
export const MAX_VCPUS = 512;
const BLOCK_ALIGNMENT = 2 * 2 ** 20;
const HUGEPAGE_1G_ALIGNMENT = 2 ** 30;
const MIN_GUEST_MEMORY = 2 ** 30;

/** sockets × ratio, lowered so sockets × cores × threads stays within 512 vCPUs (never below sockets). */
function ratioSockets(sockets: number, perSocket: number, ratio: number): number {
  const maxSockets = sockets * ratio;
  if (maxSockets * perSocket <= MAX_VCPUS) return maxSockets;
  return Math.max(Math.floor(MAX_VCPUS / perSocket), sockets);
}

function setCpuHotplug(spec: Spec, cfg: ClusterDefaults): void {
  const cpu = spec.domain.cpu;
  if (cpu === undefined || (cpu.maxSockets ?? 0) !== 0) return;
  const sockets = cpu.sockets ?? 0;
  const configured = cfg.maxCpuSockets ?? 0;
  const maxSockets =
    configured !== 0
      ? Math.max(configured, sockets)
      : ratioSockets(sockets, (cpu.cores ?? 0) * (cpu.threads ?? 0), cfg.maxHotplugRatio);
  if (maxSockets !== 0) cpu.maxSockets = maxSockets;
}

function featureBlocker(spec: Spec): string | undefined {
  const { cpu, launchSecurity } = spec.domain;
  if (cpu?.realtime !== undefined) return 'Memory hotplug is not compatible with realtime VMs';
  if (cpu?.numa?.guestMappingPassthrough !== undefined) {
    return 'Memory hotplug is not compatible with guest mapping passthrough';
  }
  if (launchSecurity !== undefined) return 'Memory hotplug is not compatible with encrypted VMs';
  return undefined;
}

function sizeBlocker(spec: Spec, guest: number, max: number): string | undefined {
  const alignment =
    spec.domain.memory?.hugepages?.pageSize === '1Gi' ? HUGEPAGE_1G_ALIGNMENT : BLOCK_ALIGNMENT;
  if (guest > max) return 'Guest memory is greater than the configured maxGuest memory';
  if (guest % alignment !== 0) return `Guest memory must be ${formatBinaryQuantity(alignment)} aligned`;
  if (max % alignment !== 0) return `MaxGuest must be ${formatBinaryQuantity(alignment)} aligned`;
  if (spec.architecture !== 'amd64') return 'Memory hotplug is only available for x86_64 VMs';
  if (guest < MIN_GUEST_MEMORY)
    return 'Memory hotplug is only available for VMs with at least 1Gi of guest memory';
  return undefined;
}

/** Why memory hotplug cannot apply to this spec with this maxGuest, or undefined when it can. */
export function memoryHotplugBlocker(spec: Spec, maxGuest: Quantity | undefined): string | undefined {
  const blocker = featureBlocker(spec);
  if (blocker !== undefined) return blocker;
  const guest = spec.domain.memory?.guest;
  if (guest === undefined) return 'Guest memory must be configured when memory hotplug is enabled';
  if (maxGuest === undefined) return 'Max guest memory must be configured when memory hotplug is enabled';
  return sizeBlocker(
    spec,
    parseQuantity(guest, 'spec.domain.memory.guest'),
    parseQuantity(maxGuest, 'spec.domain.memory.maxGuest'),
  );
}

function scaledGuest(guest: Quantity | undefined, ratio: number): Quantity | undefined {
  if (guest === undefined) return undefined;
  const bytes = parseQuantity(guest, 'spec.domain.memory.guest') * ratio;
  return Number.isSafeInteger(bytes) ? formatBinaryQuantity(bytes) : undefined;
}

function setMemoryHotplug(spec: Spec, cfg: ClusterDefaults): void {
  const memory = spec.domain.memory;
  if (memory === undefined || memory.maxGuest !== undefined) return;
  const maxGuest = cfg.maxGuest ?? scaledGuest(memory.guest, cfg.maxHotplugRatio);
  if (maxGuest === undefined || memoryHotplugBlocker(spec, maxGuest) !== undefined) return;
  memory.maxGuest = maxGuest;
}

export function setHotplugDefaults(spec: Spec, cfg: ClusterDefaults): void {
  if (cfg.vmRolloutStrategy !== 'LiveUpdate' || spec.architecture === 'arm64') return;
  setCpuHotplug(spec, cfg);
  setMemoryHotplug(spec, cfg);
}
