/**
 * The mutating webhooks, pure (kubevirt pkg/virt-api/webhooks/mutating-webhook/mutators):
 * - `/virtualmachines-mutate`: KubeVirt's VM defaults (machine type, architecture, instancetype and preference
 *   kinds; on create a firmware UUID and serial), and the VM controller's finalizer, so the controller does not
 *   need a write of its own to add it (it still adds it when it is missing);
 * - `/virtualmachineinstances-mutate`: on create SetDefaultVirtualMachineInstance, the finalizer, phase Pending
 *   with its transition time and the runtime user; on update a status change by anyone but our own service
 *   accounts is undone (the old status is put back). The VMI has no status subresource, so a create carries a
 *   status too: KubeVirt keeps it, which lets a user forge the node, volume or migration state the roles act
 *   on. Here a create by anyone but our own service accounts starts from an empty status, and only the
 *   status the mutator itself sets (phase, transition time, runtime user, memory and CPU topology) is kept;
 * - `/migration-mutate-create` (migration-create-mutator.go): a new migration's selector label and finalizer
 *   (migrationCreatePatch).
 * The answer is a JSONPatch that adds /metadata, /spec and /status whole where they changed (add replaces an
 * existing member), as KubeVirt's mutators do. An object that does not decode (object-input.ts) throws
 * InvalidObjectError, which the admission call answers with a 400, as KubeVirt answers its decoding errors.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  asMigration,
  asVirtualMachine,
  asVirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import { FINALIZERS, LABELS } from '../../kubevirt/labels.ts';
import { addFinalizer } from '../../kernel/controller/finalizers.ts';
import type { ClusterDefaults } from '../../kubevirt/defaults/cluster.ts';
import { withVmDefaults } from '../../kubevirt/defaults/vm.ts';
import { withVmiCreateDefaults } from '../../kubevirt/defaults/vmi.ts';
import type { AdmissionRequest, JsonPatchOp, Verdict } from '../../kubevirt/admission/review.ts';

export interface MutateContext {
  readonly defaults: ClusterDefaults;
  /** RFC 3339 time of the request. */
  readonly now: string;
  /** A fresh random UUID (firmware ids). */
  readonly uuid: () => string;
  /** The requester is one of the module's own service accounts (controller, handler, api). */
  readonly fromOwnServiceAccount: boolean;
}

const PARTS = ['metadata', 'spec', 'status'] as const;

/** Equal as JSON (a member set to undefined is no member). */
const sameJson = (a: unknown, b: unknown): boolean =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

/** add ops for the top-level parts that differ between the two objects. */
export function partsPatch(before: object, after: object): JsonPatchOp[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const ops: JsonPatchOp[] = [];
  for (const part of PARTS) {
    if (a[part] !== undefined && !sameJson(a[part], b[part]))
      ops.push({ op: 'add', path: `/${part}`, value: a[part] });
  }
  return ops;
}

export function mutateVm(req: AdmissionRequest, ctx: MutateContext): Verdict {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
  const vm = asVirtualMachine(req.object, 'request.object');
  const ids = req.operation === 'CREATE' ? { firmwareUuid: ctx.uuid(), firmwareSerial: ctx.uuid() } : {};
  const out = withVmDefaults(vm, ctx.defaults, ids);
  const deleting = (vm.metadata.deletionTimestamp ?? '') !== '';
  const finalizers = out.metadata.finalizers ?? [];
  if (!deleting && !finalizers.includes(FINALIZERS.VIRTUAL_MACHINE_CONTROLLER))
    out.metadata.finalizers = [...finalizers, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER];
  return { allowed: true, patch: partsPatch(vm, out) };
}

export function mutateVmi(req: AdmissionRequest, ctx: MutateContext): Verdict {
  if (req.operation === 'CREATE') {
    const vmi = asVirtualMachineInstance(req.object, 'request.object');
    const input = ctx.fromOwnServiceAccount ? vmi : { ...vmi, status: {} };
    const out = withVmiCreateDefaults(input, ctx.defaults, { now: ctx.now, firmwareUuid: ctx.uuid() });
    return { allowed: true, patch: partsPatch(vmi, out) };
  }
  if (req.operation !== 'UPDATE' || ctx.fromOwnServiceAccount) return { allowed: true };
  const vmi = asVirtualMachineInstance(req.object, 'request.object');
  const old = asVirtualMachineInstance(req.oldObject, 'request.oldObject');
  if (sameJson(vmi.status, old.status)) return { allowed: true };
  return { allowed: true, patch: [{ op: 'add', path: '/status', value: old.status ?? {} }] };
}

/**
 * A new migration's metadata patch: the label kubevirt.io/vmi-name set to spec.vmiName (over any value the
 * creator gave it), which the controllers select a VMI's migrations by, and the migration controller's
 * finalizer, which holds a deleted migration until the controller is done with it. KubeVirt appends the
 * finalizer even when the creator already listed it; here it is listed once. The migration controller adds
 * both itself when they are missing (a migration created while no configuration named this webhook).
 */
export function migrationCreatePatch(m: VirtualMachineInstanceMigration): JsonPatchOp[] {
  const metadata = {
    ...m.metadata,
    labels: { ...m.metadata.labels, [LABELS.MIGRATION_SELECTOR]: m.spec.vmiName ?? '' },
    finalizers: addFinalizer(m.metadata.finalizers, FINALIZERS.MIGRATION),
  };
  return partsPatch(m, { ...m, metadata });
}

export function mutateMigration(req: AdmissionRequest): Verdict {
  if (req.operation !== 'CREATE') return { allowed: true };
  return { allowed: true, patch: migrationCreatePatch(asMigration(req.object, 'request.object')) };
}
