/**
 * A VirtualMachineInstance that arrives from outside the API server (a file given to `virt launcher convert`,
 * the JSON of a Cmd request) is checked the way the API server and Go's decoding would have checked it before
 * anyone converts it: nulls pruned from objects, then the whole object validated against the VMI schema with
 * metadata (types, required fields, enums, integer ranges, quantities). A bad VMI is refused with one line
 * listing every problem with its field path; a good one has the shape its type says, so the converter can trust
 * it.
 */
import { KvError } from '../kernel/errors/errors.ts';
import { fieldMessage, type FieldError } from './field-error.ts';
import { s } from './schema/dsl.ts';
import { pruneNulls } from './schema/prune-nulls.ts';
import { validateAgainstSchema } from './schema/validate.ts';
import { objectMeta } from './v1/common.ts';
import type { VirtualMachineInstance } from './v1/objects.ts';
import { vmiSpec } from './v1/vmi-spec.ts';
import { vmiStatus } from './v1/vmi-status.ts';

/** The VMI as a role receives it: the CRD's root with the metadata a role reads. */
export const vmiInputSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: objectMeta.required(),
  spec: vmiSpec.required(),
  status: vmiStatus,
});

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

/**
 * The VMI in a parsed JSON or YAML value, nulls pruned; throws InvalidObjectError (KV_ERR_INVALID) naming each
 * bad field (`spec.domain.cpu.cores: expected an integer, got the string "four"`). `what` names the value itself
 * in a message about its own type ("the VMI: expected an object, got null").
 */
export function asVirtualMachineInstance(value: unknown, what = 'the VMI'): VirtualMachineInstance {
  const node = vmiInputSchema.node;
  const pruned = pruneNulls(node, value);
  const causes = validateAgainstSchema(node, pruned, '').map((c) =>
    c.field === '' ? { field: what, detail: c.detail } : c,
  );
  if (causes.length > 0) throw new InvalidObjectError(causes);
  return pruned as VirtualMachineInstance;
}
