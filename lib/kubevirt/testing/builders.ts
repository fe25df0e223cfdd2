/**
 * Option builders for test fixtures: newVmi(withDisk(...), withMemory(...)) and newVm(...) give minimal valid
 * objects with the changes applied in order.
 */
import type { VirtualMachine, VirtualMachineInstance } from '../v1/objects.ts';
import type { Disk } from '../v1/disk.ts';
import type { Volume } from '../v1/volume.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { ResourceList } from '../v1/common.ts';
import type { Cpu, Memory } from '../v1/domain.ts';
import type { Interface, Network } from '../v1/network.ts';

export type SpecOption = (spec: VirtualMachineInstanceSpec) => void;

export function newSpec(...opts: SpecOption[]): VirtualMachineInstanceSpec {
  const spec: VirtualMachineInstanceSpec = { domain: { devices: {} } };
  for (const opt of opts) opt(spec);
  return spec;
}

export function newVmi(...opts: SpecOption[]): VirtualMachineInstance {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'testvmi', namespace: 'default' },
    spec: newSpec(...opts),
  };
}

export function newVm(...opts: SpecOption[]): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'testvm', namespace: 'default' },
    spec: { runStrategy: 'Always', template: { spec: newSpec(...opts) } },
  };
}

export const withArch =
  (architecture: string): SpecOption =>
  (spec) => {
    spec.architecture = architecture;
  };

export const withDisk =
  (disk: Disk): SpecOption =>
  (spec) => {
    (spec.domain.devices.disks ??= []).push(disk);
  };

export const withVolume =
  (volume: Volume): SpecOption =>
  (spec) => {
    (spec.volumes ??= []).push(volume);
  };

export const withRequests =
  (requests: ResourceList): SpecOption =>
  (spec) => {
    spec.domain.resources = { ...spec.domain.resources, requests };
  };

export const withLimits =
  (limits: ResourceList): SpecOption =>
  (spec) => {
    spec.domain.resources = { ...spec.domain.resources, limits };
  };

export const withMemory =
  (memory: Memory): SpecOption =>
  (spec) => {
    spec.domain.memory = memory;
  };

export const withCpu =
  (cpu: Cpu): SpecOption =>
  (spec) => {
    spec.domain.cpu = cpu;
  };

export const withInterface =
  (iface: Interface, network?: Network): SpecOption =>
  (spec) => {
    (spec.domain.devices.interfaces ??= []).push(iface);
    if (network !== undefined) (spec.networks ??= []).push(network);
  };

export const withSpec =
  (patch: (spec: VirtualMachineInstanceSpec) => void): SpecOption =>
  (spec) => {
    patch(spec);
  };
