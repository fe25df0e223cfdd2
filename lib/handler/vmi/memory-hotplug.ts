/**
 * The handler's side of memory hotplug (kubevirt pkg/virt-handler migration-target.go hotplugMemory): a
 * running VMI of this node whose spec asks for another guest memory than status.memory.guestRequested records
 * has its launcher resize the domain's virtio-mem device (SyncVirtualMachineMemory); on success the spec's
 * guest memory becomes status.memory.guestRequested and HotMemoryChange goes. A refusal turns HotMemoryChange
 * False with KubeVirt's reason and message, a Warning event says why, and no retry follows (the VM controller
 * then asks for a restart); a launcher not reached is only a Warning, the next sync asks again. KubeVirt does this on the target of a live migration; with no migrations here, the
 * running domain is changed where it runs. Not built: KubeVirt's check that the launcher Pod's memory request
 * covers the new guest memory (the Pod keeps the request it started with).
 */
import { findCondition, withoutCondition } from '../../kubevirt/conditions.ts';
import {
  HOT_MEMORY_CHANGE,
  requiresMemoryHotplug,
  type Quantity,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { DomainJson, LauncherClient } from '../../rpc/index.ts';

export type MemoryHotplugOutcome = { readonly applied: Quantity } | { readonly failed: string };

type Status = NonNullable<VirtualMachineInstance['status']>;

const FAILED_REASON = 'MemoryHotplugFailed';
const FAILED_MESSAGE = 'memory hotplug failed, the VM configuration is not supported';

/** The guest memory the domain should get now, or undefined when nothing is to be done. Pure. */
export function memoryHotplugTarget(
  vmi: VirtualMachineInstance | undefined,
  domain: DomainJson | undefined,
): Quantity | undefined {
  if (vmi === undefined || vmi.metadata.deletionTimestamp !== undefined) return undefined;
  const state = domain?.Status.Status;
  if (vmi.status?.phase !== 'Running' || (state !== 'Running' && state !== 'Paused')) return undefined;
  if (!requiresMemoryHotplug(vmi)) return undefined;
  // A refused change stays refused: the VM controller turns it into RestartRequired.
  if (findCondition(vmi.status.conditions, HOT_MEMORY_CHANGE)?.status === 'False') return undefined;
  return vmi.spec.domain.memory?.guest;
}

export interface MemoryHotplugStep {
  readonly vmi: VirtualMachineInstance | undefined;
  readonly client: LauncherClient | undefined;
  readonly domain: DomainJson | undefined;
  readonly recorder: EventRecorder;
  readonly log: Logger;
}

/** Asks the launcher for the VMI's guest memory; what came of it, or undefined when nothing was asked. */
export async function syncMemoryHotplug(step: MemoryHotplugStep): Promise<MemoryHotplugOutcome | undefined> {
  const { vmi, client } = step;
  const guest = memoryHotplugTarget(vmi, step.domain);
  if (vmi === undefined || client === undefined || guest === undefined) return undefined;
  const warn = (why: string): void => {
    step.recorder.event(vmi, 'Warning', 'SyncFailed', `failed to change the guest memory: ${why}`);
  };
  let r: { success: boolean; message: string };
  try {
    r = await client.vmiCommand('syncVirtualMachineMemory', vmi);
  } catch (err) {
    // The launcher was not reached: the next sync asks again.
    warn(errorMessage(err));
    return undefined;
  }
  if (!r.success) {
    warn(r.message);
    return { failed: r.message };
  }
  step.log.info('guest memory changed', { name: vmi.metadata.name, guest: String(guest) });
  return { applied: guest };
}

/** The status after this sync's memory hotplug (pure): guestRequested, HotMemoryChange dropped or False. */
export function withMemoryHotplug(
  status: Status,
  outcome: MemoryHotplugOutcome | undefined,
  out: VirtualMachineInstance,
): void {
  if (outcome !== undefined && 'applied' in outcome) {
    status.memory = { ...status.memory, guestRequested: outcome.applied };
  }
  if (outcome !== undefined && 'failed' in outcome) {
    status.conditions = [
      ...withoutCondition(status.conditions, HOT_MEMORY_CHANGE),
      { type: HOT_MEMORY_CHANGE, status: 'False', reason: FAILED_REASON, message: FAILED_MESSAGE },
    ];
    return;
  }
  if (!requiresMemoryHotplug(out) && findCondition(status.conditions, HOT_MEMORY_CHANGE) !== undefined) {
    status.conditions = withoutCondition(status.conditions, HOT_MEMORY_CHANGE);
  }
}
