/**
 * What each kubevirt.io CRD declares besides its schema: short names, printer columns and whether status is a
 * subresource. Names come from gvr.ts; the internal CRDs are these passed through the rewriter (build.ts).
 */
import type { GroupVersionResource } from '../../../kernel/kube/types.ts';
import type { AnySchema } from '../../../kubevirt/schema/dsl.ts';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../kubevirt/gvr.ts';
import {
  kubeVirtSchema,
  migrationSchema,
  virtualMachineInstanceSchema,
  virtualMachineSchema,
} from '../../../kubevirt/v1/objects.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'date' | 'string' | 'integer' | 'boolean';
  readonly jsonPath: string;
  readonly description?: string;
  /** 0 shows in the default table, 1 only with -o wide. */
  readonly priority?: number;
}

export interface CrdDefinition {
  readonly gvr: GroupVersionResource;
  readonly shortNames: readonly string[];
  /**
   * Status as a subresource. Off for VMIs, as in KubeVirt and Deckhouse: virt-handler and virt-controller write
   * a VMI's status together with its labels in one update of the main resource.
   */
  readonly statusSubresource: boolean;
  readonly printerColumns: readonly PrinterColumn[];
  readonly schema: AnySchema;
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const PHASE: PrinterColumn = { name: 'Phase', type: 'string', jsonPath: '.status.phase' };
const conditionColumn = (name: string, type: string, priority?: number): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=='${type}')].status`,
  ...(priority !== undefined && { priority }),
});

export const VIRTUAL_MACHINE_CRD: CrdDefinition = {
  gvr: VIRTUAL_MACHINES,
  shortNames: ['vm', 'vms'],
  statusSubresource: true,
  printerColumns: [
    AGE,
    {
      name: 'Status',
      type: 'string',
      jsonPath: '.status.printableStatus',
      description: 'Human readable status',
    },
    conditionColumn('Ready', 'Ready'),
  ],
  schema: virtualMachineSchema,
};

const VIRTUAL_MACHINE_INSTANCE_CRD: CrdDefinition = {
  gvr: VIRTUAL_MACHINE_INSTANCES,
  shortNames: ['vmi', 'vmis'],
  statusSubresource: false,
  printerColumns: [
    AGE,
    PHASE,
    { name: 'IP', type: 'string', jsonPath: '.status.interfaces[0].ipAddress' },
    { name: 'NodeName', type: 'string', jsonPath: '.status.nodeName' },
    conditionColumn('Ready', 'Ready'),
    conditionColumn('Live-Migratable', 'LiveMigratable', 1),
    conditionColumn('Paused', 'Paused', 1),
  ],
  schema: virtualMachineInstanceSchema,
};

const KUBEVIRT_CRD: CrdDefinition = {
  gvr: KUBEVIRTS,
  shortNames: ['kv', 'kvs'],
  statusSubresource: true,
  printerColumns: [AGE, PHASE],
  schema: kubeVirtSchema,
};

const MIGRATION_CRD: CrdDefinition = {
  gvr: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  shortNames: ['vmim', 'vmims'],
  statusSubresource: true,
  printerColumns: [
    { ...PHASE, description: 'Phase of the migration' },
    { name: 'VMI', type: 'string', jsonPath: '.spec.vmiName', description: 'The VMI being migrated' },
  ],
  schema: migrationSchema,
};

export const CRD_DEFINITIONS: readonly CrdDefinition[] = [
  VIRTUAL_MACHINE_CRD,
  VIRTUAL_MACHINE_INSTANCE_CRD,
  KUBEVIRT_CRD,
  MIGRATION_CRD,
];
