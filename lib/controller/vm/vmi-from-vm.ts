/**
 * The VMI a VM starts (kubevirt vm.go setupVMIFromVM and startVMI): named after the VM, the template's labels
 * and annotations, the VM's generation in kubevirt.io/vm-generation, the VM controller's finalizer, a
 * controller reference to the VM, startStrategy Paused for a paused Start request, pending volume and resource
 * claim requests applied (hotplug-requests.ts), and a firmware UUID that stays the same across restarts.
 */
import { createHash } from 'node:crypto';
import {
  ANNOTATIONS,
  FINALIZERS,
  KUBEVIRT_API_VERSION,
  KUBEVIRT_GROUP,
  KUBEVIRT_VERSION,
} from '../../kubevirt/index.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { newControllerRef } from '../../kernel/controller/owner.ts';
import { hasStartPausedRequest } from './state-change.ts';
import { applyHotplugRequests } from './hotplug-requests.ts';

export const VM_GVK = { group: KUBEVIRT_GROUP, version: KUBEVIRT_VERSION, kind: 'VirtualMachine' } as const;

/** KubeVirt's namespace UUID for firmware UUIDs (vm/firmware.go magicUUID). */
const FIRMWARE_UUID_NAMESPACE = '6a1a24a1-4061-4607-8bf4-a3963d0c5895';

/**
 * KubeVirt's CalculateLegacyUUID: a name-based (version 5, SHA-1) UUID of the VM name in KubeVirt's namespace,
 * so a VM keeps its firmware UUID across restarts and matches what KubeVirt would have given it.
 */
export function legacyFirmwareUuid(vmName: string): string {
  const ns = Buffer.from(FIRMWARE_UUID_NAMESPACE.replaceAll('-', ''), 'hex');
  const b = createHash('sha1').update(ns).update(vmName, 'utf8').digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x50;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function vmiMetadata(vm: VirtualMachine): VirtualMachineInstance['metadata'] {
  const template = vm.spec.template;
  const labels = template.metadata?.labels;
  return {
    name: vm.metadata.name ?? '',
    ...(vm.metadata.namespace !== undefined && { namespace: vm.metadata.namespace }),
    ...(labels !== undefined && { labels: { ...labels } }),
    annotations: {
      ...template.metadata?.annotations,
      [ANNOTATIONS.VM_GENERATION]: String(vm.metadata.generation ?? 0),
    },
    finalizers: [FINALIZERS.VIRTUAL_MACHINE_CONTROLLER],
    ownerReferences: [newControllerRef(vm, VM_GVK)],
  };
}

export function newVmiFromVm(vm: VirtualMachine): VirtualMachineInstance {
  const spec = applyHotplugRequests(vm.spec.template.spec, vm.status);
  if (hasStartPausedRequest(vm)) spec.startStrategy = 'Paused';
  const firmware = (spec.domain.firmware ??= {});
  if ((firmware.uuid ?? '') === '') firmware.uuid = legacyFirmwareUuid(vm.metadata.name ?? '');
  return {
    apiVersion: KUBEVIRT_API_VERSION,
    kind: 'VirtualMachineInstance',
    metadata: vmiMetadata(vm),
    spec,
  };
}
