/**
 * A kubevirt.io/v1 object that arrives from outside (an admission review's object, a file given to `virt
 * launcher convert`, the JSON of a Cmd request) is checked the way Go's decoding would have checked it before
 * anyone reads it (KubeVirt's webhookutils.GetVMIFromAdmissionReview and its kin unmarshal into the Go type):
 * nulls pruned from objects, then the whole object validated against its schema with metadata (types, required
 * fields, enums, integer ranges, quantities). A bad object is refused with one line listing every problem with
 * its field path; a good one has the shape its type says, so the code that reads it can trust it.
 */
import { KvError } from '../kernel/errors/errors.ts';
import { fieldMessage, type FieldError } from './field-error.ts';
import { s, type AnySchema } from './schema/dsl.ts';
import { pruneNulls } from './schema/prune-nulls.ts';
import { validateAgainstSchema } from './schema/validate.ts';
import { objectMeta } from './v1/common.ts';
import { migrationSpec, migrationStatus } from './v1/migration.ts';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from './v1/objects.ts';
import { vmSpec } from './v1/vm.ts';
import { vmStatus } from './v1/vm-status.ts';
import { vmiSpec } from './v1/vmi-spec.ts';
import { vmiStatus } from './v1/vmi-status.ts';

/** An object as a role receives it: the CRD's root with the metadata a role reads. */
const inputSchema = (spec: AnySchema, status: AnySchema): AnySchema =>
  s.object({
    apiVersion: s.string(),
    kind: s.string(),
    metadata: objectMeta.required(),
    spec: spec.required(),
    status,
  });

export const vmiInputSchema = inputSchema(vmiSpec, vmiStatus);
const vmInputSchema = inputSchema(vmSpec, vmStatus);
const migrationInputSchema = inputSchema(migrationSpec, migrationStatus);

const LISTED = 10;

/** An object that does not fit its schema: every problem, and the first ones on one line. */
class InvalidObjectError extends KvError {
  readonly causes: readonly FieldError[];
  constructor(causes: readonly FieldError[]) {
    const listed = causes.slice(0, LISTED).map(fieldMessage);
    const more = causes.length > LISTED ? [`and ${String(causes.length - LISTED)} more`] : [];
    super('KV_ERR_INVALID', [...listed, ...more].join('; '));
    this.causes = causes;
  }
}

/** The value with its nulls pruned once it fits the schema (its type is then the schema's); else InvalidObjectError. */
function checked(schema: AnySchema, value: unknown, what: string): unknown {
  const node = schema.node;
  const pruned = pruneNulls(node, value);
  const causes = validateAgainstSchema(node, pruned, '').map((c) =>
    c.field === '' ? { field: what, detail: c.detail } : c,
  );
  if (causes.length > 0) throw new InvalidObjectError(causes);
  return pruned;
}

/**
 * The VMI in a parsed JSON or YAML value, nulls pruned; throws InvalidObjectError (KV_ERR_INVALID) naming each
 * bad field (`spec.domain.cpu.cores: expected an integer, got the string "four"`). `what` names the value itself
 * in a message about its own type ("the VMI: expected an object, got null").
 */
export function asVirtualMachineInstance(value: unknown, what = 'the VMI'): VirtualMachineInstance {
  return checked(vmiInputSchema, value, what) as VirtualMachineInstance;
}

/** The VirtualMachine in a parsed value, as asVirtualMachineInstance reads a VMI. */
export function asVirtualMachine(value: unknown, what = 'the VM'): VirtualMachine {
  return checked(vmInputSchema, value, what) as VirtualMachine;
}

/** The VirtualMachineInstanceMigration in a parsed value, as asVirtualMachineInstance reads a VMI. */
export function asMigration(value: unknown, what = 'the migration'): VirtualMachineInstanceMigration {
  return checked(migrationInputSchema, value, what) as VirtualMachineInstanceMigration;
}
