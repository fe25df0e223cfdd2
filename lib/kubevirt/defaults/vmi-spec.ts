/**
 * Spec defaults KubeVirt's mutating webhook applies to a new VMI before anything else: architecture, machine
 * type, resource requests, guest memory, CPU topology, containerDisk pull policy, eviction strategy, the
 * default pod network and a disk for every volume. Each step mutates the (already cloned) spec it is given.
 */
import { newStatus, StatusError } from '../../kernel/errors/errors.ts';
import { isZeroQuantity, parseQuantity, quantityValue } from '../quantity.ts';
import type { Quantity } from '../schema/dsl.ts';
import type { ResourceList } from '../v1/common.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { DEFAULT_CPU_REQUEST, machineTypeFor, type ClusterDefaults } from './cluster.ts';

type Spec = VirtualMachineInstanceSpec;

export function setArchitecture(spec: Spec, cfg: ClusterDefaults): void {
  if (spec.architecture === undefined || spec.architecture === '')
    spec.architecture = cfg.defaultArchitecture;
}

export function setMachineType(spec: Spec, cfg: ClusterDefaults): void {
  const machine = spec.domain.machine ?? {};
  if (machine.type === undefined || machine.type === '')
    machine.type = machineTypeFor(cfg, spec.architecture ?? '');
  spec.domain.machine = machine;
}

function hugepagesSize(spec: Spec): Quantity | undefined {
  const size = spec.domain.memory?.hugepages?.pageSize;
  if (size === undefined) return undefined;
  try {
    parseQuantity(size, 'spec.domain.memory.hugepages.pageSize');
    return size;
  } catch {
    return undefined;
  }
}

function requestsOf(spec: Spec): ResourceList {
  const resources = (spec.domain.resources ??= {});
  return (resources.requests ??= {});
}

function requestsFollowLimits(spec: Spec): void {
  const { requests, limits } = spec.domain.resources ?? {};
  for (const name of ['cpu', 'memory']) {
    const limit = limits?.[name];
    if (limit === undefined || isZeroQuantity(limit, `spec.domain.resources.limits.${name}`)) continue;
    if (isZeroQuantity(requests?.[name], `spec.domain.resources.requests.${name}`)) {
      requestsOf(spec)[name] = limit;
    }
  }
}

function requestGuestMemory(spec: Spec): void {
  if (spec.domain.resources?.requests?.['memory'] !== undefined) return;
  const guest = spec.domain.memory?.guest;
  const memory = guest ?? hugepagesSize(spec);
  const field = guest !== undefined ? 'spec.domain.memory.guest' : 'spec.domain.memory.hugepages.pageSize';
  if (memory !== undefined && parseQuantity(memory, field) > 0) requestsOf(spec)['memory'] = memory;
}

function requestClusterCpu(spec: Spec, cpuRequest: Quantity | undefined): void {
  if (cpuRequest === undefined) return;
  if (parseQuantity(cpuRequest, 'cpuRequest') === parseQuantity(DEFAULT_CPU_REQUEST)) return;
  if (spec.domain.resources?.requests?.['cpu'] !== undefined) return;
  if (spec.domain.cpu?.dedicatedCpuPlacement === true) return;
  requestsOf(spec)['cpu'] = cpuRequest;
}

/** Requests follow limits; memory is requested as the guest memory (or one hugepage); optional CPU request. */
function setResourceRequests(spec: Spec, cfg: ClusterDefaults): void {
  requestsFollowLimits(spec);
  requestGuestMemory(spec);
  requestClusterCpu(spec, cfg.cpuRequest);
}

/** memory.guest defaults to the memory request, else the limit, else the hugepage size. */
function setGuestMemory(spec: Spec): void {
  const memory = (spec.domain.memory ??= {});
  if (memory.guest !== undefined) return;
  const { requests, limits } = spec.domain.resources ?? {};
  const request = requests?.['memory'];
  const limit = limits?.['memory'];
  const guest =
    (!isZeroQuantity(request, 'spec.domain.resources.requests.memory') ? request : undefined) ??
    (!isZeroQuantity(limit, 'spec.domain.resources.limits.memory') ? limit : undefined) ??
    hugepagesSize(spec);
  if (guest !== undefined) memory.guest = guest;
}

/** With no topology at all: one core, one thread, and one socket per requested (or limited) CPU. */
function setGuestCpuTopology(spec: Spec): void {
  const cpu = spec.domain.cpu;
  if (cpu !== undefined && (cpu.cores ?? 0) + (cpu.sockets ?? 0) + (cpu.threads ?? 0) > 0) return;
  const { requests, limits } = spec.domain.resources ?? {};
  const limit = limits?.['cpu'];
  const request = requests?.['cpu'];
  const sockets =
    limit !== undefined
      ? quantityValue(limit, 'spec.domain.resources.limits.cpu')
      : request !== undefined
        ? quantityValue(request, 'spec.domain.resources.requests.cpu')
        : 1;
  spec.domain.cpu = { ...cpu, sockets, cores: 1, threads: 1 };
}

/** Always for :latest or untagged images, IfNotPresent otherwise. */
function setContainerDiskPullPolicies(spec: Spec): void {
  for (const v of spec.volumes ?? []) {
    const cd = v.containerDisk;
    if (cd === undefined || cd.imagePullPolicy !== undefined) continue;
    const floating = cd.image.endsWith(':latest') || !/[:@]/.test(cd.image);
    cd.imagePullPolicy = floating ? 'Always' : 'IfNotPresent';
  }
}

function setEvictionStrategy(spec: Spec, cfg: ClusterDefaults): void {
  if (spec.evictionStrategy === undefined && cfg.evictionStrategy !== undefined) {
    spec.evictionStrategy = cfg.evictionStrategy;
  }
}

function rejected(message: string): StatusError {
  return new StatusError(newStatus(400, message));
}

/** A VMI with no interfaces and no networks gets the cluster's default interface on the pod network. */
function setDefaultNetworkInterface(spec: Spec, cfg: ClusterDefaults): void {
  if (spec.domain.devices.autoattachPodInterface === false) return;
  if ((spec.networks?.length ?? 0) > 0 || (spec.domain.devices.interfaces?.length ?? 0) > 0) return;
  switch (cfg.defaultNetworkInterface) {
    case 'bridge':
      if (!cfg.permitBridgeInterfaceOnPodNetwork)
        throw rejected('bridge interface is not enabled in kubevirt-config');
      spec.domain.devices.interfaces = [{ name: 'default', bridge: {} }];
      break;
    case 'masquerade':
      spec.domain.devices.interfaces = [{ name: 'default', masquerade: {} }];
      break;
    case 'slirp':
      throw rejected('slirp interface is deprecated as of v1.3');
    default:
      break;
  }
  spec.networks = [{ name: 'default', pod: {} }];
}

/** Every volume that no disk or filesystem names gets a disk of the same name. */
function setVolumeDisks(spec: Spec): void {
  const devices = spec.domain.devices;
  const named = new Set([...(devices.disks ?? []), ...(devices.filesystems ?? [])].map((d) => d.name));
  for (const v of spec.volumes ?? []) {
    if (!named.has(v.name)) (devices.disks ??= []).push({ name: v.name });
  }
}

/** KubeVirt's SetDefaultVirtualMachineInstanceSpec, in its order. */
export function setVmiSpecDefaults(spec: Spec, cfg: ClusterDefaults): void {
  setArchitecture(spec, cfg);
  setMachineType(spec, cfg);
  setResourceRequests(spec, cfg);
  setGuestMemory(spec);
  setGuestCpuTopology(spec);
  setContainerDiskPullPolicies(spec);
  setEvictionStrategy(spec, cfg);
  setDefaultNetworkInterface(spec, cfg);
  setVolumeDisks(spec);
}
