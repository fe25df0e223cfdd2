/**
 * The pod-eviction admitter's decision (kubevirt pod-eviction-admitter.go Admit, tag v1.6.2) as a pure table:
 * an eviction of a running launcher Pod whose VMI's eviction strategy (its own, else the cluster's) asks for a
 * live migration is denied with 429, and the VMI is marked with status.evacuationNodeName = the Pod's node so a
 * migration moves it; a hotplug-disk Pod of a live launcher is never evicted; anything else is allowed.
 * The messages are KubeVirt's (the descheduler reads the evacuation one).
 *
 * The caller (the api's /pod-eviction-validate webhook) reads what the table needs: the owner Pod of a
 * hotplug-disk Pod (ownerReferences[0]) and the VMI named by the launcher's kubevirt.io/domain annotation; it
 * sends the evacuation mark (as a dry run when isDryRunEviction says the eviction is one) and answers
 * markFailedMessage(err) when that write fails.
 */
import { ANNOTATIONS, APP_LABEL, LABEL_VALUES } from '../labels.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { EvictionStrategy } from '../v1/vmi-spec.ts';
import type { Pod } from '../core/pod.ts';
import { hasConditionStatus } from '../conditions.ts';

/** The outcome of a read: the object, undefined when it was not found, or the error's text. */
type Read<T> = T | undefined | { error: string };

export interface EvictionInput {
  /** The Pod named by the eviction. */
  pod: Pod;
  /** For a hotplug-disk Pod: its owner, the launcher Pod. */
  ownerPod?: Read<Pod>;
  /** The VMI named by the (owner) launcher Pod's kubevirt.io/domain annotation, in the Pod's namespace. */
  vmi?: Read<VirtualMachineInstance>;
  clusterEvictionStrategy?: EvictionStrategy | undefined;
}

export type EvictionDecision =
  | { allowed: true }
  /** code 429; `evacuateNode`: set the VMI's status.evacuationNodeName to it (the deny stands either way). */
  | { allowed: false; code: 429; message: string; evacuateNode?: string };

const ALLOW: EvictionDecision = { allowed: true };
const deny = (message: string, evacuateNode?: string): EvictionDecision => ({
  allowed: false,
  code: 429,
  message,
  ...(evacuateNode !== undefined && { evacuateNode }),
});

const isError = <T extends object>(r: Read<T>): r is { error: string } =>
  r !== undefined && 'error' in r && typeof r.error === 'string';
const isLauncher = (p: Pod): boolean => p.metadata.labels?.[APP_LABEL] === LABEL_VALUES.LAUNCHER;
const isCompleted = (p: Pod): boolean => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded';
const domainOf = (p: Pod): string | undefined => p.metadata.annotations?.[ANNOTATIONS.DOMAIN];
const isMigratable = (vmi: VirtualMachineInstance): boolean =>
  hasConditionStatus(vmi.status?.conditions, 'LiveMigratable', 'True');

/** The answer when writing the evacuation mark failed. */
export function markFailedMessage(err: string): string {
  return `kubevirt failed marking the vmi for eviction: ${err}`;
}

function hotplugPod(input: EvictionInput): EvictionDecision {
  const { pod, ownerPod: owner, vmi } = input;
  if (isError(owner)) return deny(`failed getting owner for hotplug pod: ${owner.error}`);
  if (owner === undefined || !isLauncher(owner) || isCompleted(owner)) return ALLOW;
  const vmiName = domainOf(owner);
  if (vmiName === undefined) return ALLOW;
  if (isError(vmi)) return deny(`kubevirt failed getting the vmi: ${vmi.error}`);
  if (vmi === undefined) return ALLOW;
  const ns = pod.metadata.namespace ?? '';
  return deny(
    `cannot evict hotplug pod: ${pod.metadata.name ?? ''} associated with running vmi: ${vmiName} in namespace ${ns}`,
  );
}

/** Whether the strategy wants the VMI migrated away (or refuses outright: a string is the deny message). */
function wantsEvacuation(strategy: EvictionStrategy, vmi: VirtualMachineInstance): boolean | string {
  switch (strategy) {
    case 'LiveMigrate':
      return isMigratable(vmi)
        ? true
        : `VMI ${vmi.metadata.name ?? ''} is configured with an eviction strategy but is not live-migratable`;
    case 'LiveMigrateIfPossible':
      return isMigratable(vmi);
    case 'External':
      return true;
    case 'None':
      return false;
  }
}

function launcherPod(input: EvictionInput, vmiName: string): EvictionDecision {
  const { pod, vmi } = input;
  if (isError(vmi)) return deny(`kubevirt failed getting the vmi: ${vmi.error}`);
  if (vmi === undefined) {
    return deny(
      `kubevirt failed getting the vmi: virtualmachineinstances.kubevirt.io "${vmiName}" not found`,
    );
  }
  const strategy = vmi.spec.evictionStrategy ?? input.clusterEvictionStrategy;
  if (strategy === undefined) return ALLOW;
  const wants = wantsEvacuation(strategy, vmi);
  if (typeof wants === 'string') return deny(wants);
  if (!wants) return ALLOW;
  return evacuate(vmi, pod);
}

/** Mark the VMI for evacuation from the Pod's node, unless it is already marked or the Pod is a target. */
function evacuate(vmi: VirtualMachineInstance, pod: Pod): EvictionDecision {
  const { namespace = '', name = '' } = vmi.metadata;
  const triggered = `Eviction triggered evacuation of VMI "${namespace}/${name}"`;
  if ((vmi.status?.evacuationNodeName ?? '') !== '') return deny(`Evacuation in progress: ${triggered}`);
  const node = pod.spec.nodeName ?? '';
  if ((vmi.status?.nodeName ?? '') !== node) return deny('Eviction request for target Pod');
  return deny(triggered, node);
}

/** The admission answer to evicting input.pod. */
export function decideEviction(input: EvictionInput): EvictionDecision {
  const { pod } = input;
  const app = pod.metadata.labels?.[APP_LABEL];
  if (app === LABEL_VALUES.HOTPLUG_DISK && pod.metadata.ownerReferences?.length === 1)
    return hotplugPod(input);
  if (!isLauncher(pod) || isCompleted(pod)) return ALLOW;
  const vmiName = domainOf(pod);
  return vmiName === undefined ? ALLOW : launcherPod(input, vmiName);
}

/**
 * The eviction is a dry run (isDryRun): the review says so, or the Eviction's deleteOptions.dryRun starts with
 * All.
 */
export function isDryRunEviction(reviewDryRun: boolean | undefined, eviction: unknown): boolean {
  if (reviewDryRun === true) return true;
  if (typeof eviction !== 'object' || eviction === null) return false;
  const options = (eviction as { deleteOptions?: { dryRun?: unknown } }).deleteOptions;
  const dryRun = options?.dryRun;
  return Array.isArray(dryRun) && dryRun[0] === 'All';
}
