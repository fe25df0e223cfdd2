/**
 * The four kubevirt.io/v1 objects: their root schemas (what a CRD validates) and their TypeScript types, both
 * built from the spec and status schemas.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';
import { s, type AnySchema } from '../schema/dsl.ts';
import { kubevirtSpec, kubevirtStatus, type KubeVirtSpec, type KubeVirtStatus } from './kubevirt.ts';
import {
  migrationSpec,
  migrationStatus,
  type VirtualMachineInstanceMigrationSpec,
  type VirtualMachineInstanceMigrationStatus,
} from './migration.ts';
import { vmSpec, type VirtualMachineSpec } from './vm.ts';
import { vmStatus, type VirtualMachineStatus } from './vm-status.ts';
import { vmiSpec, type VirtualMachineInstanceSpec } from './vmi-spec.ts';
import { vmiStatus, type VirtualMachineInstanceStatus } from './vmi-status.ts';

export interface VirtualMachine extends KubeObject {
  spec: VirtualMachineSpec;
  status?: VirtualMachineStatus;
}

export interface VirtualMachineInstance extends KubeObject {
  spec: VirtualMachineInstanceSpec;
  status?: VirtualMachineInstanceStatus;
}

export interface KubeVirt extends KubeObject {
  spec: KubeVirtSpec;
  status?: KubeVirtStatus;
}

export interface VirtualMachineInstanceMigration extends KubeObject {
  spec: VirtualMachineInstanceMigrationSpec;
  status?: VirtualMachineInstanceMigrationStatus;
}

/** apiVersion, kind and metadata as every CRD declares them (the API server validates metadata itself). */
function rootSchema(spec: AnySchema, status: AnySchema): AnySchema {
  return s.object({
    apiVersion: s.string(),
    kind: s.string(),
    metadata: s.object({}),
    spec: spec.required(),
    status,
  });
}

export const virtualMachineSchema = rootSchema(vmSpec, vmStatus);
export const virtualMachineInstanceSchema = rootSchema(vmiSpec, vmiStatus);
export const kubeVirtSchema = rootSchema(kubevirtSpec, kubevirtStatus);
export const migrationSchema = rootSchema(migrationSpec, migrationStatus);
