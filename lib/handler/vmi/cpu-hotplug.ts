/**
 * The handler's side of CPU hotplug (kubevirt pkg/virt-handler hotplugCPU): a running VMI of this node whose
 * spec asks for another vCPU count than status.currentCPUTopology records has its launcher set the domain's
 * count (SyncVirtualMachineCPUs); on success the spec's topology becomes status.currentCPUTopology and
 * HotVCPUChange goes (status.ts). KubeVirt does this on the target of the live migration its workload updater
 * starts for the change; with no migrations here, the running domain is changed where it runs.
 * A refusal is a Warning event on the VMI, and the condition stays: the next sync tries again.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { requiresCpuHotplug } from '../../kubevirt/index.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { DomainJson, LauncherClient } from '../../rpc/index.ts';

export type CpuTopology = NonNullable<NonNullable<VirtualMachineInstance['status']>['currentCPUTopology']>;

/** A running VMI, not being deleted, whose domain is up. */
function live(vmi: VirtualMachineInstance, domain: DomainJson | undefined): boolean {
  const state = domain?.Status.Status;
  return (
    vmi.metadata.deletionTimestamp === undefined &&
    vmi.status?.phase === 'Running' &&
    (state === 'Running' || state === 'Paused')
  );
}

/** The topology the domain should get now, or undefined when nothing is to be done. Pure. */
export function cpuHotplugTarget(
  vmi: VirtualMachineInstance | undefined,
  domain: DomainJson | undefined,
): CpuTopology | undefined {
  if (vmi === undefined || !live(vmi, domain) || !requiresCpuHotplug(vmi)) return undefined;
  const cpu = vmi.spec.domain.cpu;
  return {
    ...(cpu?.sockets !== undefined && { sockets: cpu.sockets }),
    ...(cpu?.cores !== undefined && { cores: cpu.cores }),
    ...(cpu?.threads !== undefined && { threads: cpu.threads }),
  };
}

export interface CpuHotplugStep {
  readonly vmi: VirtualMachineInstance | undefined;
  readonly client: LauncherClient | undefined;
  readonly domain: DomainJson | undefined;
  readonly recorder: EventRecorder;
  readonly log: Logger;
}

/** Applies the VMI's vCPU count to its domain; the topology now in effect, or undefined (none applied). */
export async function syncCpuHotplug(step: CpuHotplugStep): Promise<CpuTopology | undefined> {
  const { vmi, client } = step;
  const target = cpuHotplugTarget(vmi, step.domain);
  if (vmi === undefined || client === undefined || target === undefined) return undefined;
  let failure: string | undefined;
  try {
    const r = await client.vmiCommand('syncVirtualMachineCpUs', vmi);
    if (!r.success) failure = r.message;
  } catch (err) {
    failure = errorMessage(err);
  }
  if (failure !== undefined) {
    step.recorder.event(vmi, 'Warning', 'SyncFailed', `failed to change vCPUs: ${failure}`);
    return undefined;
  }
  step.log.info('vCPUs changed', { name: vmi.metadata.name, ...target });
  return target;
}
