/**
 * Requests and limits of the launcher's compute container (kubevirt renderresources.go ResourceRenderer and
 * VMIResourcePredicates, tag v1.6.2): the VMI's own requests and limits, a CPU request of vCPUs / the CPU
 * allocation ratio unless the VMI asks for one (Deckhouse's CPU fraction instead, when the VMI carries it:
 * cpu-fraction.ts), dedicated CPUs as whole cores with memory limit = request, the memory overhead added to
 * the memory request (unless overcommitGuestOverhead) and limit, 50M more ephemeral storage, and one of each
 * device the launcher needs as an extended-resource limit:
 * devices.virtualization.deckhouse.io/{kvm,tun,vhost-net,vhost-vsock} (Deckhouse's names for devices.kubevirt.io/*),
 * plus GPU and host-device plugin resources, each one the KubeVirt CR's permittedHostDevices permits
 * (permitted-host-devices.ts). A hugepages VMI gets its memory as hugepages and only the overhead (and what it
 * asks above its guest memory) as memory. Memory overcommit is not rendered.
 */
import {
  KVM_DEVICE,
  TUN_DEVICE,
  VHOST_NET_DEVICE,
  VHOST_VSOCK_DEVICE,
} from '../../kubevirt/device-resources.ts';
import { formatBinaryQuantity, isDraDevice, parseQuantity } from '../../kubevirt/index.ts';
import type { Quantity, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vcpusOf } from '../../kubevirt/vmi-state.ts';
import { fractionCpu } from './cpu-fraction.ts';
import { guestMemoryRequest, memoryOverheadBytes, type OverheadOptions } from './overhead.ts';
import { checkPermittedHostDevices } from './permitted-host-devices.ts';

/** Ephemeral storage the launcher itself uses (KubeVirt's ephemeralStorageOverheadSize). */
const EPHEMERAL_STORAGE_OVERHEAD = 50_000_000;
export const DEFAULT_CPU_ALLOCATION_RATIO = 10;

export interface ResourceOptions {
  /** TCG allowed: no kvm and no vhost-net device is requested (KubeVirt's allowEmulation). */
  allowEmulation: boolean;
  cpuAllocationRatio: number;
  overhead: OverheadOptions;
  /** The KubeVirt CR's permittedHostDevices resource names; every device is permitted when unset. */
  permittedHostDevices?: ReadonlySet<string> | undefined;
}

export interface ResourceRequirements {
  requests: Record<string, string>;
  limits: Record<string, string>;
  /** The Pod's resource claims (and requests) the DRA GPUs and host devices use. */
  claims?: { name: string; request: string }[];
}

type Spec = VirtualMachineInstance['spec'];

const text = (q: Quantity): string => (typeof q === 'number' ? String(q) : q);

function copyList(list: Readonly<Record<string, Quantity>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(list ?? {})) out[k] = text(v);
  return out;
}

/** Decimal bytes the way Kubernetes prints them: 50000000 → "50M". */
function decimalBytes(bytes: number): string {
  for (const [unit, size] of [
    ['G', 1e9],
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (bytes !== 0 && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** KubeVirt's "%g" formatting of vCPUs / ratio, in millicores below one core. */
function cpuRequest(cpus: number, ratio: number): string {
  const val = cpus / ratio;
  return val < 1 ? `${Number((val * 1000).toPrecision(6))}m` : String(Number(val.toPrecision(6)));
}

function virtualizationDevices(spec: Spec, allowEmulation: boolean): string[] {
  const d = spec.domain.devices;
  const out: string[] = [];
  if ((d.interfaces?.length ?? 0) > 0 || d.autoattachPodInterface !== false) out.push(TUN_DEVICE);
  const virtioNic = d.interfaces?.some((i) => (i.model ?? '') === '' || i.model === 'virtio') ?? false;
  if (virtioNic && !allowEmulation) out.push(VHOST_NET_DEVICE);
  if (!allowEmulation) out.push(KVM_DEVICE);
  if (d.autoattachVSOCK === true) out.push(VHOST_VSOCK_DEVICE);
  return out;
}

function addOne(list: Record<string, string>, name: string): void {
  list[name] = String(Number(list[name] ?? '0') + 1);
}

interface Addition {
  readonly bytes: number;
  readonly format: (n: number) => string;
  /** The VMI field the list entry came from (for a quantity that does not parse). */
  readonly field: string;
}

function addBytes(list: Record<string, string>, key: string, add: Addition): void {
  const cur = list[key];
  list[key] = add.format((cur === undefined ? 0 : parseQuantity(cur, add.field)) + add.bytes);
}

function dedicatedCpus(spec: Spec, requests: Record<string, string>, limits: Record<string, string>): void {
  const cpu = spec.domain.cpu;
  const ioThreads = spec.domain.ioThreads?.supplementalPoolThreadCount ?? 0;
  const vcpus = vcpusOf(cpu);
  const emulator = cpu?.isolateEmulatorThread === true ? 1 : 0;
  if (vcpus !== 0) {
    requests['cpu'] = String(vcpus + ioThreads + emulator);
    limits['cpu'] = String(vcpus + ioThreads + emulator);
  }
  const mem = requests['memory'];
  if (mem !== undefined) limits['memory'] = mem;
}

function withMemory(spec: Spec, requests: Record<string, string>): void {
  if (requests['memory'] === undefined && spec.domain.memory?.guest !== undefined) {
    requests['memory'] = formatBinaryQuantity(guestMemoryRequest(spec));
  }
}

function withEphemeralStorage(requests: Record<string, string>, limits: Record<string, string>): void {
  const add = { bytes: EPHEMERAL_STORAGE_OVERHEAD, format: decimalBytes };
  addBytes(requests, 'ephemeral-storage', {
    ...add,
    field: 'spec.domain.resources.requests.ephemeral-storage',
  });
  if (limits['ephemeral-storage'] !== undefined) {
    addBytes(limits, 'ephemeral-storage', {
      ...add,
      field: 'spec.domain.resources.limits.ephemeral-storage',
    });
  }
}

/**
 * The request and limit of Deckhouse's cpu-resources-requests-fraction (cpu-fraction.ts), when the VMI carries
 * it and asks for no CPU request or limit itself; whether they were set.
 */
function fractionCpus(
  vmi: Pick<VirtualMachineInstance, 'spec' | 'metadata'>,
  r: ResourceRequirements,
): boolean {
  if (r.requests['cpu'] !== undefined || r.limits['cpu'] !== undefined) return false;
  const cpu = fractionCpu(vmi);
  if (cpu === undefined) return false;
  r.requests['cpu'] = cpu.request;
  r.limits['cpu'] = cpu.limit;
  return true;
}

/** vCPUs (+ IOThread pool) / ratio as the request, unless the VMI asks for CPU itself. */
function sharedCpus(spec: Spec, requests: Record<string, string>, ratio: number): void {
  if (requests['cpu'] !== undefined || ratio <= 0) return;
  const vcpus = spec.domain.cpu === undefined ? 1 : vcpusOf(spec.domain.cpu);
  const cpus = vcpus + (spec.domain.ioThreads?.supplementalPoolThreadCount ?? 0);
  if (cpus > 0) requests['cpu'] = cpuRequest(cpus, ratio);
}

function withOverhead(
  vmi: Pick<VirtualMachineInstance, 'spec'>,
  opts: ResourceOptions,
  r: ResourceRequirements,
): void {
  const overhead = memoryOverheadBytes(vmi, opts.overhead);
  const add = { bytes: overhead, format: formatBinaryQuantity };
  if (vmi.spec.domain.resources?.overcommitGuestOverhead !== true) {
    addBytes(r.requests, 'memory', { ...add, field: 'spec.domain.resources.requests.memory' });
  }
  if (r.limits['memory'] !== undefined) {
    addBytes(r.limits, 'memory', { ...add, field: 'spec.domain.resources.limits.memory' });
  }
}

/**
 * Hugepages (kubevirt WithHugePages): `hugepages-<pageSize>` requested and limited at the guest's memory request
 * (memory.guest when that is smaller); the memory request and limit become the overhead plus whatever the VMI's
 * request or limit is above memory.guest. The overhead is always requested (no overcommitGuestOverhead here).
 */
function withHugepages(
  vmi: Pick<VirtualMachineInstance, 'spec'>,
  pageSize: string,
  opts: ResourceOptions,
  r: ResourceRequirements,
): void {
  const guest = vmi.spec.domain.memory?.guest;
  const guestBytes = guest === undefined ? undefined : parseQuantity(guest, 'spec.domain.memory.guest');
  const bytesOf = (list: Record<string, string>, kind: string): number => {
    const q = list['memory'];
    return q === undefined ? 0 : parseQuantity(q, `spec.domain.resources.${kind}.memory`);
  };
  const above = (bytes: number): number =>
    guestBytes !== undefined && bytes > guestBytes ? bytes - guestBytes : 0;
  const request = bytesOf(r.requests, 'requests');
  const pages =
    guest !== undefined && guestBytes !== undefined && request > guestBytes ? guest : r.requests['memory'];
  r.requests[`hugepages-${pageSize}`] = pages === undefined ? '0' : text(pages);
  r.limits[`hugepages-${pageSize}`] = pages === undefined ? '0' : text(pages);
  const overhead = memoryOverheadBytes(vmi, opts.overhead);
  r.requests['memory'] = formatBinaryQuantity(overhead + above(request));
  if (r.limits['memory'] !== undefined) {
    r.limits['memory'] = formatBinaryQuantity(overhead + above(bytesOf(r.limits, 'limits')));
  }
}

function withDevicePlugins(spec: Spec, limits: Record<string, string>): void {
  for (const dev of [...(spec.domain.devices.gpus ?? []), ...(spec.domain.devices.hostDevices ?? [])]) {
    if ((dev.deviceName ?? '') !== '') addOne(limits, dev.deviceName ?? '');
  }
}

/**
 * The claim request of each DRA GPU and host device (renderresources.go WithGPUsDRA, WithHostDevicesDRA), once
 * each. KubeVirt keeps one entry per claim name, so a second request of the same claim would not reach the
 * container; one entry per claim and request keeps both.
 */
export function draClaims(spec: Spec): { name: string; request: string }[] {
  const out: { name: string; request: string }[] = [];
  for (const dev of [...(spec.domain.devices.gpus ?? []), ...(spec.domain.devices.hostDevices ?? [])]) {
    if (!isDraDevice(dev) || dev.claimName === undefined || dev.requestName === undefined) continue;
    const { claimName: name, requestName: request } = dev;
    if (!out.some((c) => c.name === name && c.request === request)) out.push({ name, request });
  }
  return out;
}

export function launcherResources(
  vmi: Pick<VirtualMachineInstance, 'spec' | 'metadata'>,
  opts: ResourceOptions,
): ResourceRequirements {
  const spec = vmi.spec;
  checkPermittedHostDevices(spec, opts.permittedHostDevices);
  const r: ResourceRequirements = {
    requests: copyList(spec.domain.resources?.requests),
    limits: copyList(spec.domain.resources?.limits),
  };
  withMemory(spec, r.requests);
  withEphemeralStorage(r.requests, r.limits);
  for (const dev of virtualizationDevices(spec, opts.allowEmulation)) r.limits[dev] = '1';
  if (spec.domain.cpu?.dedicatedCpuPlacement === true) dedicatedCpus(spec, r.requests, r.limits);
  else if (!fractionCpus(vmi, r)) sharedCpus(spec, r.requests, opts.cpuAllocationRatio);
  const pageSize = spec.domain.memory?.hugepages?.pageSize;
  if (pageSize === undefined) withOverhead(vmi, opts, r);
  else withHugepages(vmi, pageSize, opts, r);
  withDevicePlugins(spec, r.limits);
  const claims = draClaims(spec);
  if (claims.length > 0) r.claims = claims;
  return r;
}
