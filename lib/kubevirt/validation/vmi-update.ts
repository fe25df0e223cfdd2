/**
 * An update of a VMI (KubeVirt vmi-update-admitter.go Admit): the spec is KubeVirt's to change. A user's
 * request that changes it is refused; one from KubeVirt's service accounts (addvolume, removevolume, hotplug,
 * volume migration) may change volumes and disks, but not cpu.maxSockets or memory.maxGuest, and the new spec
 * must pass the spec rules. Users may not touch the reserved kubevirt.io/ labels. virt-handler may only update
 * VMIs on its node (or the migration target's) and may not set the target: KubeVirt's NodeRestriction rules,
 * applied whether or not the gate is listed (a handler's token must not reach another node's VMIs).
 * KubeVirt stops at the first failing step; so does this. Only the spec rules' causes have fields.
 */
import type { VirtualMachineInstance } from '../v1/objects.ts';
import { firstFailing, invalid, notSupported, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { compareQuantities } from './quantities.ts';
import { semanticEqual } from './equality.ts';
import { reservedLabels } from './vmi-metadata.ts';
import { validateVmiSpec } from './vmi-spec.ts';
import { storageUpdateCauses } from './vmi-update-storage.ts';

type Vmi = Pick<VirtualMachineInstance, 'metadata' | 'spec' | 'status'>;

export interface VmiUpdateContext extends ValidationContext {
  /** The request comes from one of KubeVirt's (our) service accounts. */
  readonly isKubevirtServiceAccount: boolean;
  /**
   * Set when the request comes from virt-handler's service account: the node named in the request's
   * `authentication.kubernetes.io/node-name` user extra, if any.
   */
  readonly virtHandler?: { readonly nodeName: string | undefined };
}

const targetNodeOf = (vmi: Vmi): string => vmi.status?.migrationState?.targetNode ?? '';

function nodeRestriction(oldVmi: Vmi, newVmi: Vmi, ctx: VmiUpdateContext): Causes {
  const handler = ctx.virtHandler;
  if (handler === undefined) return [];
  const node = handler.nodeName ?? '';
  if (node === '')
    return [invalid('', 'Node restriction failed, virt-handler service account is missing node name')];
  const source = oldVmi.status?.nodeName ?? '';
  const target = targetNodeOf(oldVmi);
  if (node !== source && (target === '' || node !== target)) {
    return [invalid('', 'Node restriction, virt-handler is only allowed to modify VMIs it owns')];
  }
  if (target === '' && targetNodeOf(newVmi) !== '') {
    return [invalid('', 'Node restriction, virt-handler is not allowed to set target node')];
  }
  return [];
}

function hotplugCauses(oldVmi: Vmi, newVmi: Vmi, ctx: VmiUpdateContext): Causes {
  const oldCpu = oldVmi.spec.domain.cpu?.maxSockets ?? 0;
  if (oldCpu !== (newVmi.spec.domain.cpu?.maxSockets ?? 0))
    return [invalid('', 'CPU topology maxSockets changed')];
  const oldMax = oldVmi.spec.domain.memory?.maxGuest;
  const newMax = newVmi.spec.domain.memory?.maxGuest;
  if (oldMax !== undefined && newMax !== undefined && compareQuantities(oldMax, newMax) !== 0) {
    return [invalid('', 'Memory maxGuest changed')];
  }
  return firstFailing(
    () => storageUpdateCauses(oldVmi, newVmi, ctx),
    () => validateVmiSpec(newVmi.spec, ctx, 'spec'),
  );
}

function specCauses(oldVmi: Vmi, newVmi: Vmi, ctx: VmiUpdateContext): Causes {
  if (semanticEqual(newVmi.spec, oldVmi.spec)) return [];
  if (!ctx.isKubevirtServiceAccount) return [notSupported('', 'update of VMI object is restricted')];
  return hotplugCauses(oldVmi, newVmi, ctx);
}

function labelCauses(oldVmi: Vmi, newVmi: Vmi, ctx: VmiUpdateContext): Causes {
  if (ctx.isKubevirtServiceAccount) return [];
  if (semanticEqual(reservedLabels(oldVmi.metadata.labels), reservedLabels(newVmi.metadata.labels)))
    return [];
  return [
    notSupported(
      '',
      'modification of the following reserved kubevirt.io/ labels on a VMI object is prohibited',
    ),
  ];
}

export function validateVmiUpdate(oldVmi: Vmi, newVmi: Vmi, ctx: VmiUpdateContext): Causes {
  return firstFailing(
    () => nodeRestriction(oldVmi, newVmi, ctx),
    () => specCauses(oldVmi, newVmi, ctx),
    () => labelCauses(oldVmi, newVmi, ctx),
  );
}
