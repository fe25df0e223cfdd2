/**
 * What the VM controller does with a change of a running VM's CPU sockets or guest memory (kubevirt vm.go
 * handleCPUChangeRequest, VMICPUsPatch, handleMemoryHotplugRequest, addRestartRequiredIfNeeded, tag v1.6.2).
 * Pure. Under the LiveUpdate rollout strategy a socket count the VMI can grow to, or a guest memory between
 * the boot memory and maxGuest, is patched into the running VMI (with its CPU or memory requests and limits
 * moved by the change), guarded by test operations; anything else that cannot be applied live sets the VM's
 * RestartRequired condition with KubeVirt's message. KubeVirt's "only available for migratable VMs" check is
 * left out: the change is applied where the VMI runs, no migration needed. Only these two fields are looked
 * at: KubeVirt's comparison of the whole template with the spec the VMI started from needs controller
 * revisions, which this controller does not keep.
 */
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  formatBinaryQuantity,
  HOT_MEMORY_CHANGE,
  HOT_VCPU_CHANGE,
  parseQuantity,
  vcpusOf,
  type Quantity,
} from '../../kubevirt/index.ts';
import { memoryHotplugBlocker } from '../../kubevirt/defaults/hotplug.ts';
import { findCondition } from '../../kubevirt/conditions.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';

export interface JsonPatchOp {
  readonly op: 'test' | 'replace' | 'add';
  readonly path: string;
  readonly value: unknown;
}

export type LiveUpdateDecision =
  | { readonly kind: 'none' }
  /** A change is under way (HotVCPUChange): look again once the VMI moves on. */
  | { readonly kind: 'wait'; readonly reason: string }
  | { readonly kind: 'patchVmi'; readonly area: 'cpu' | 'memory'; readonly patch: readonly JsonPatchOp[] }
  | { readonly kind: 'restartRequired'; readonly message: string };

export interface LiveUpdateInput {
  readonly vm: VirtualMachine;
  readonly vmi: VirtualMachineInstance | undefined;
  readonly rolloutStrategy: 'Stage' | 'LiveUpdate';
  /** The cluster's cpuAllocationRatio: each vCPU requests 1/ratio of a CPU. */
  readonly cpuAllocationRatio: number;
}

const NONE: LiveUpdateDecision = { kind: 'none' };
const NON_LIVE = 'a non-live-updatable field was changed in the template spec';
const restart = (message: string): LiveUpdateDecision => ({ kind: 'restartRequired', message });

type Resources = VirtualMachineInstance['spec']['domain']['resources'];

function sameQuantity(a: Quantity, b: Quantity): boolean {
  return parseQuantity(a) === parseQuantity(b);
}

/** A CPU quantity moved by deltaMilli thousandths of a CPU, as KubeVirt writes it ("1200m", "2"). */
function shiftedCpu(q: Quantity, deltaMilli: number): string {
  const milli = Math.round(parseQuantity(q) * 1000) + deltaMilli;
  return milli % 1000 === 0 ? String(milli / 1000) : `${String(milli)}m`;
}

/** test + replace of /spec/domain/resources/<list>/cpu when the template sets it. */
function resourceOps(
  list: 'requests' | 'limits',
  template: Resources | undefined,
  vmiResources: Resources | undefined,
  deltaMilli: number,
): JsonPatchOp[] {
  const wanted = template?.[list]?.['cpu'];
  const current = vmiResources?.[list]?.['cpu'];
  if (wanted === undefined || parseQuantity(wanted) === 0 || current === undefined) return [];
  const path = `/spec/domain/resources/${list}/cpu`;
  return [
    { op: 'test', path, value: current },
    { op: 'replace', path, value: shiftedCpu(current, deltaMilli) },
  ];
}

/** Why the template's sockets cannot go into the running VMI, or undefined when they can. */
function cpuRefusal(
  i: LiveUpdateInput,
  vmi: VirtualMachineInstance,
  want: number,
): LiveUpdateDecision | undefined {
  const have = vmi.spec.domain.cpu?.sockets ?? 0;
  if (i.rolloutStrategy !== 'LiveUpdate') return restart(NON_LIVE);
  if (findCondition(vmi.status?.conditions, HOT_VCPU_CHANGE)?.status === 'True') {
    return { kind: 'wait', reason: 'another CPU hotplug is in progress' };
  }
  if (want > (vmi.spec.domain.cpu?.maxSockets ?? 0)) {
    return restart("CPU sockets updated in template spec to a value higher than what's available");
  }
  if (want < have) return restart('Reduction of CPU socket count requires a restart');
  return isArm(i, vmi) ? restart("ARM doesn't support CPU hotplug") : undefined;
}

const isArm = (i: LiveUpdateInput, vmi: VirtualMachineInstance): boolean =>
  (i.vm.spec.template.spec.architecture ?? vmi.spec.architecture) === 'arm64';

/** The VMI patch of KubeVirt's VMICPUsPatch: sockets, and CPU requests/limits by the vCPUs added. */
function cpuPatch(i: LiveUpdateInput, vmi: VirtualMachineInstance): JsonPatchOp[] {
  const template = i.vm.spec.template.spec;
  const deltaMilli = Math.trunc(
    ((vcpusOf(template.domain.cpu) - vcpusOf(vmi.spec.domain.cpu)) * 1000) /
      Math.max(1, i.cpuAllocationRatio),
  );
  return [
    { op: 'test', path: '/spec/domain/cpu/sockets', value: vmi.spec.domain.cpu?.sockets ?? 0 },
    { op: 'replace', path: '/spec/domain/cpu/sockets', value: template.domain.cpu?.sockets },
    ...resourceOps('requests', template.domain.resources, vmi.spec.domain.resources, deltaMilli),
    ...resourceOps('limits', template.domain.resources, vmi.spec.domain.resources, deltaMilli),
  ];
}

function cpuChange(i: LiveUpdateInput, vmi: VirtualMachineInstance): LiveUpdateDecision {
  const want = i.vm.spec.template.spec.domain.cpu?.sockets;
  const haveCpu = vmi.spec.domain.cpu;
  if (want === undefined || haveCpu === undefined || want === (haveCpu.sockets ?? 0)) return NONE;
  return cpuRefusal(i, vmi, want) ?? { kind: 'patchVmi', area: 'cpu', patch: cpuPatch(i, vmi) };
}

/** A memory request or limit moved by deltaBytes, as a binary quantity ("1152Mi"). */
const shiftedMemory = (q: Quantity | undefined, deltaBytes: number): string =>
  formatBinaryQuantity((q === undefined ? 0 : parseQuantity(q)) + deltaBytes);

/** test + replace of a path the VMI has, add of one it lacks. */
function setOps(path: string, current: Quantity | undefined, value: string): JsonPatchOp[] {
  if (current === undefined) return [{ op: 'add', path, value }];
  return [
    { op: 'test', path, value: current },
    { op: 'replace', path, value },
  ];
}

/**
 * The memory request after the change and the growth the limit moves by: the request moves by the growth over
 * status.memory.guestCurrent, but never ends below the guest memory (then the limit does not move).
 */
function memoryShift(vmi: VirtualMachineInstance, wantBytes: number): { request: number; delta: number } {
  const request = vmi.spec.domain.resources?.requests?.['memory'];
  const delta = wantBytes - parseQuantity(vmi.status?.memory?.guestCurrent ?? 0);
  const moved = (request === undefined ? 0 : parseQuantity(request)) + delta;
  return moved < wantBytes ? { request: wantBytes, delta: 0 } : { request: moved, delta };
}

/** KubeVirt's VMIMemoryPatch: the guest memory, the memory request, and the limit when the template sets one. */
function memoryPatch(
  vmi: VirtualMachineInstance,
  want: Quantity,
  template: Resources | undefined,
): JsonPatchOp[] {
  const res = vmi.spec.domain.resources;
  const { request, delta } = memoryShift(vmi, parseQuantity(want));
  const templateLimit = template?.limits?.['memory'];
  const limit = res?.limits?.['memory'];
  const limitOps =
    templateLimit === undefined || parseQuantity(templateLimit) === 0
      ? []
      : setOps('/spec/domain/resources/limits/memory', limit, shiftedMemory(limit, delta));
  return [
    ...setOps('/spec/domain/memory/guest', vmi.spec.domain.memory?.guest, String(want)),
    ...setOps(
      '/spec/domain/resources/requests/memory',
      res?.requests?.['memory'],
      formatBinaryQuantity(request),
    ),
    ...limitOps,
  ];
}

/** The template's guest memory below the boot memory or above maxGuest: a restart. */
function memoryBoundsRefusal(
  vmi: VirtualMachineInstance,
  want: Quantity,
  maxGuest: Quantity,
): LiveUpdateDecision | undefined {
  const atBoot = vmi.status?.memory?.guestAtBoot;
  if (atBoot !== undefined && parseQuantity(want) < parseQuantity(atBoot)) {
    return restart('memory updated in template spec to a value lower than what the VM started with');
  }
  if (parseQuantity(want) > parseQuantity(maxGuest)) {
    return restart("memory updated in template spec to a value higher than what's available");
  }
  return undefined;
}

/** KubeVirt's reasons a memory change cannot go live (handleMemoryHotplugRequest), in its order. */
function memoryRefusal(
  i: LiveUpdateInput,
  vmi: VirtualMachineInstance,
  want: Quantity,
): LiveUpdateDecision | undefined {
  if (i.rolloutStrategy !== 'LiveUpdate') return restart(NON_LIVE);
  const maxGuest = vmi.spec.domain.memory?.maxGuest;
  if (maxGuest === undefined) {
    return restart(
      'memory updated in template spec. Memory-hotplug is not available for this VM configuration',
    );
  }
  if (findCondition(vmi.status?.conditions, HOT_MEMORY_CHANGE)?.status === 'True') {
    return { kind: 'wait', reason: 'another memory hotplug is in progress' };
  }
  const template = i.vm.spec.template.spec;
  const architecture = template.architecture ?? vmi.spec.architecture;
  const blocker = memoryHotplugBlocker(
    { ...template, ...(architecture !== undefined && { architecture }) },
    maxGuest,
  );
  if (blocker !== undefined) return restart(`memory hotplug not supported, ${blocker}`);
  return memoryBoundsRefusal(vmi, want, maxGuest);
}

function memoryChange(i: LiveUpdateInput, vmi: VirtualMachineInstance): LiveUpdateDecision {
  const want = i.vm.spec.template.spec.domain.memory?.guest;
  const have = vmi.spec.domain.memory?.guest;
  if (want === undefined || have === undefined || vmi.status?.memory?.guestCurrent === undefined) return NONE;
  if (findCondition(vmi.status.conditions, HOT_MEMORY_CHANGE)?.status === 'False') {
    return restart(
      'memory updated in template spec. Memory-hotplug failed and is not available for this VM configuration',
    );
  }
  if (sameQuantity(want, have)) return NONE;
  return (
    memoryRefusal(i, vmi, want) ?? {
      kind: 'patchVmi',
      area: 'memory',
      patch: memoryPatch(vmi, want, i.vm.spec.template.spec.domain.resources),
    }
  );
}

/** The decision for a VM and its VMI; CPU first, then memory, as KubeVirt's sync orders them. */
export function decideLiveUpdate(i: LiveUpdateInput): LiveUpdateDecision {
  const vmi = i.vmi;
  if (vmi === undefined || vmi.metadata.deletionTimestamp !== undefined || isFinal(vmi)) return NONE;
  if (findCondition(i.vm.status?.conditions, 'RestartRequired')?.status === 'True') return NONE;
  const cpu = cpuChange(i, vmi);
  const change = cpu.kind === 'none' ? memoryChange(i, vmi) : cpu;
  // A VMI on its way up boots from the spec it has: the change is made once it runs.
  if (change.kind !== 'none' && vmi.status?.phase !== 'Running') {
    return { kind: 'wait', reason: 'the VMI is not running yet' };
  }
  return change;
}
