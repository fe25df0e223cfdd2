/**
 * virtctl migrate and migrate-cancel (kubevirt pkg/virtctl/vm/migrate.go and migrate_cancel.go, tag v1.6.2):
 * migrate PUTs the VM's migrate subresource with MigrateOptions (--addedNodeSelector key=value pairs, parsed
 * as pflag's StringToString flag parses them, and --dry-run); migrate-cancel deletes the first migration of the
 * VMI (by the kubevirt.io/vmi-name label) that has not ended, and fails when there is none. Pure.
 */
import { subresourcePath } from '../../kubevirt/gvr.ts';
import { LABELS } from '../../kubevirt/labels.ts';
import type { MigrateOptions } from '../../kubevirt/v1/subresources.ts';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/v1/objects.ts';
import { dryRunField, type ApiCall } from '../api-call.ts';
import { usageError } from '../errors/failures.ts';

/**
 * One --addedNodeSelector value added to those before it (pflag StringToString: comma-separated key=value
 * pairs, the value after the first '='; a later key wins).
 */
export function nodeSelectorFlag(
  value: string,
  previous: Record<string, string> | undefined,
): Record<string, string> {
  const out = { ...previous };
  for (const pair of value === '' ? [] : value.split(',')) {
    const eq = pair.indexOf('=');
    if (eq === -1) {
      throw usageError(
        `invalid argument ${JSON.stringify(value)} for "--addedNodeSelector" flag: ${pair} must be formatted as key=value`,
      );
    }
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

export function migrateCall(
  target: { namespace: string; name: string },
  f: { readonly dryRun?: boolean; readonly addedNodeSelector?: Record<string, string> },
): ApiCall {
  const body: MigrateOptions = {
    ...dryRunField(f.dryRun),
    ...(f.addedNodeSelector !== undefined && { addedNodeSelector: f.addedNodeSelector }),
  };
  return {
    method: 'PUT',
    path: subresourcePath({ resource: 'virtualmachines', ...target }, 'migrate'),
    body,
  };
}

/** The label selector of the VMI's migrations (virtctl's `kubevirt.io/vmi-name==<name>`). */
export const migrationsOf = (vmi: string): string => `${LABELS.MIGRATION_SELECTOR}==${vmi}`;

/** The migration to delete: the first, in list order, that has not succeeded or failed. */
export function migrationToCancel(
  items: readonly VirtualMachineInstanceMigration[],
): VirtualMachineInstanceMigration | undefined {
  return items.find((m) => m.status?.phase !== 'Succeeded' && m.status?.phase !== 'Failed');
}

export const noMigrationMessage = (vm: string): string => `Found no migration to cancel for ${vm}`;
