/**
 * What the handler does for one VMI of its node in a sync (kubevirt pkg/virt-handler/vm.go sync), in this
 * order: shut the domain down, delete it, or bring it in line with the VMI; nothing otherwise. Pure.
 * - shutdown: the domain is alive (not Shutoff/Crashed) and the VMI is gone or being deleted;
 * - delete: the domain exists but is not alive and the VMI is gone, being deleted or not final (a Shutoff domain
 *   of a Scheduled VMI with no reason yet may still be starting: wait; unless the last sync failed, which
 *   left it defined and never started: sync again), or the VMI is final;
 * - sync: the VMI is not final and the phase the domain says is the phase it has (during start-up the two agree
 *   only once the handler wrote what the domain says);
 * - wait, instead of the first start, while a hotplug volume of the spec is not mounted into the launcher Pod
 *   yet (the domain would start without that disk: Deckhouse's boot disks are hotpluggable), or while a DRA
 *   device has no status to attach it by (KubeVirt's handler waits for IsAllDRA…Reconciled the same way);
 * - wait, instead of a sync of the running domain, while a DRA device hotplugged into it has no status to attach
 *   it by yet: the launcher's converter refuses a DRA device it cannot attach, so the sync would fail until the
 *   controller writes the address; a claim that is never allocated holds the domain's other changes back.
 * - none while a migration is under way (vm.go execute): the migration's own passes own the VMI and the domain
 *   then; a domain that migrated away (Shutoff, Migrated) is deleted as any dead domain is, and keeps the phase.
 */
import { draDevicesPending, hotplugVolumesReady, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson } from '../../rpc/index.ts';
import { migrationInProgress } from '../migration/role.ts';
import { domainPhase, type LauncherReach } from './phase.ts';

export type HandlerAction = 'shutdown' | 'delete' | 'sync' | 'wait' | 'none';

export interface DecideInput {
  /** undefined: the VMI is gone from the cluster. */
  readonly vmi: VirtualMachineInstance | undefined;
  readonly domain: DomainJson | undefined;
  readonly launcher: LauncherReach;
}

export function domainAlive(domain: DomainJson | undefined): boolean {
  return domain !== undefined && domain.Status.Status !== 'Shutoff' && domain.Status.Status !== 'Crashed';
}

const isFinal = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.phase === 'Succeeded' || vmi.status?.phase === 'Failed';

/** A Shutoff domain whose VMI is Scheduled and that has no reason yet: defined, not started (yet). */
function notStartedYet(vmi: VirtualMachineInstance, domain: DomainJson): boolean {
  const reason = domain.Status.Reason;
  return (
    domain.Status.Status === 'Shutoff' &&
    vmi.status?.phase === 'Scheduled' &&
    (reason === '' || reason === 'Unknown')
  );
}

/** The handler's last sync of the VMI failed (Synchronized False). */
const lastSyncFailed = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.conditions?.some((c) => c.type === 'Synchronized' && c.status === 'False') ?? false;

/** The sync that starts the domain, once the hotplug volumes and the DRA devices are there. */
const start = (vmi: VirtualMachineInstance): HandlerAction =>
  hotplugVolumesReady(vmi) && draDevicesPending(vmi) === undefined ? 'sync' : 'wait';

/** The sync of a running domain, once a DRA device hotplugged into it can be attached. */
const keepInLine = (vmi: VirtualMachineInstance): HandlerAction =>
  draDevicesPending(vmi) === undefined ? 'sync' : 'wait';

/** A domain of a live VMI that is not alive: deleted, unless it was defined and not started yet. */
function deadDomainAction(vmi: VirtualMachineInstance, domain: DomainJson): HandlerAction {
  if (!notStartedYet(vmi, domain)) return 'delete';
  return lastSyncFailed(vmi) ? start(vmi) : 'wait';
}

export function decideAction({ vmi, domain, launcher }: DecideInput): HandlerAction {
  const alive = domainAlive(domain);
  const leaving = vmi === undefined || vmi.metadata.deletionTimestamp !== undefined;
  if (leaving) return alive ? 'shutdown' : domain !== undefined ? 'delete' : 'none';
  if (isFinal(vmi)) return domain !== undefined ? 'delete' : 'none';
  if (migrationInProgress(vmi, domain)) return 'none';
  return liveVmiAction(vmi, domain, launcher);
}

/** A VMI that is neither leaving, final nor migrating. */
function liveVmiAction(
  vmi: VirtualMachineInstance,
  domain: DomainJson | undefined,
  launcher: LauncherReach,
): HandlerAction {
  if (domain !== undefined && !domainAlive(domain)) return deadDomainAction(vmi, domain);
  if (domainPhase(vmi, domain, launcher) !== vmi.status?.phase) return 'none';
  return domain === undefined ? start(vmi) : keepInLine(vmi);
}
