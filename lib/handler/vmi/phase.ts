/**
 * The VMI phase the domain says (kubevirt pkg/virt-handler/vm.go calculateVmPhaseForStatusReason). Pure.
 * - No domain: a Scheduled or Running VMI keeps its phase until its launcher is initialized, and becomes Failed
 *   once the launcher is unresponsive; a VMI not final yet is Scheduled.
 * - Shutoff/Crashed: Crashed or Panicked → Failed; Destroyed → Failed when ACPI was on (the grace period ran out
 *   on a shutdown the guest ignored), else Succeeded; Shutdown, Saved, FromSnapshot → Succeeded; Migrated keeps
 *   the phase.
 * - Paused: Running, unless a post-copy migration failed. Running, Blocked, PMSuspended: Running.
 */
import type { VirtualMachineInstance, VirtualMachineInstancePhase } from '../../kubevirt/index.ts';
import type { DomainJson } from '../../rpc/index.ts';

export interface LauncherReach {
  /** The launcher has answered once (its cmd socket served). */
  readonly initialized: boolean;
  /** It stopped answering Ping past its deadline (or its socket is gone). */
  readonly unresponsive: boolean;
  /** Its last Ping failed (it may be unresponsive soon: look again shortly). */
  readonly failing?: boolean;
}

type Vmi = Pick<VirtualMachineInstance, 'status' | 'spec'>;
type Phase = VirtualMachineInstancePhase | undefined;

const phaseOf = (vmi: Vmi): Phase => vmi.status?.phase;
const isFinal = (p: Phase): boolean => p === 'Succeeded' || p === 'Failed';

/** ACPI is on unless the VMI turns it off (the domain JSON carries no features; the spec decides). */
export function acpiEnabled(vmi: Vmi): boolean {
  return vmi.spec.domain.features?.acpi?.enabled !== false;
}

function withoutDomain(vmi: Vmi, launcher: LauncherReach): Phase {
  const phase = phaseOf(vmi);
  if (phase === 'Scheduled' || phase === 'Running') {
    if (!launcher.initialized) return phase;
    return launcher.unresponsive ? 'Failed' : phase;
  }
  return isFinal(phase) ? phase : 'Scheduled';
}

function stopped(vmi: Vmi, reason: string): Phase {
  switch (reason) {
    case 'Crashed':
    case 'Panicked':
      return 'Failed';
    case 'Destroyed':
      return acpiEnabled(vmi) ? 'Failed' : 'Succeeded';
    case 'Shutdown':
    case 'Saved':
    case 'FromSnapshot':
      return 'Succeeded';
    default:
      return phaseOf(vmi);
  }
}

export function domainPhase(vmi: Vmi, domain: DomainJson | undefined, launcher: LauncherReach): Phase {
  if (domain === undefined) return withoutDomain(vmi, launcher);
  const { Status: status, Reason: reason } = domain.Status;
  switch (status) {
    case 'Shutoff':
    case 'Crashed':
      return stopped(vmi, reason);
    case 'Paused':
      return reason === 'PostcopyFailed' ? 'Failed' : 'Running';
    case 'Running':
    case 'Blocked':
    case 'PMSuspended':
      return 'Running';
    case 'NoState':
    case 'ShuttingDown':
      return phaseOf(vmi);
  }
}
