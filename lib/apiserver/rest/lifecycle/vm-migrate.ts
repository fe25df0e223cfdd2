/**
 * PUT virtualmachines/{name}/migrate (kubevirt rest/lifecycle.go MigrateVMRequestHandler, tag v1.6.2), in order:
 * - 400 for a body that does not decode as MigrateOptions;
 * - 404 without the VM, then 404 without its VMI (virtualmachineinstance);
 * - 409 "VM is not running" on the VM while the VMI's phase is not Running;
 * - else a VirtualMachineInstanceMigration of the VMI is created, named by the API server from the prefix
 *   kubevirt-migrate-vm-, with the body's addedNodeSelector and its dryRun as the create's; a create that
 *   fails is 500 (internalError with the error's text), one that succeeds 202.
 * Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../../kubevirt/index.ts';
import { KUBEVIRT_API_VERSION } from '../../../kubevirt/index.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { VM_NOT_RUNNING } from '../messages.ts';
import { conflict, internalError, isRefusal, notFound, type Refusal } from '../refusal.ts';

const MIGRATION_GENERATE_NAME = 'kubevirt-migrate-vm-';

export interface MigrateRequest {
  /** The name in the request path. */
  readonly name: string;
  readonly vm: VirtualMachine | undefined;
  readonly vmi: VirtualMachineInstance | undefined;
  readonly body: unknown;
}

/** The migration to create, and the create's dryRun (absent: none). */
export interface MigratePlan {
  readonly migration: VirtualMachineInstanceMigration;
  readonly dryRun?: readonly string[];
}

export function planMigrate(req: MigrateRequest): MigratePlan | Refusal {
  const opts = decodeOptions('migrate', req.body);
  if (isRefusal(opts)) return opts;
  if (req.vm === undefined) return notFound('virtualmachine', req.name);
  if (req.vmi === undefined) return notFound('virtualmachineinstance', req.name);
  if (req.vmi.status?.phase !== 'Running') return conflict('virtualmachine', req.name, VM_NOT_RUNNING);
  const selector = opts.addedNodeSelector ?? {};
  const migration: VirtualMachineInstanceMigration = {
    apiVersion: KUBEVIRT_API_VERSION,
    kind: 'VirtualMachineInstanceMigration',
    metadata: { generateName: MIGRATION_GENERATE_NAME },
    spec: {
      vmiName: req.name,
      ...(Object.keys(selector).length > 0 && { addedNodeSelector: selector }),
    },
  };
  const dryRun = opts.dryRun ?? [];
  return { migration, ...(dryRun.length > 0 && { dryRun }) };
}

/** The answer to a create that failed with `text`. */
export const migrationCreateFailure = (text: string): Refusal => internalError(text);
