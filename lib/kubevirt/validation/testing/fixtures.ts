/**
 * Fixtures for the validator tables: a VMI spec every rule accepts (as the mutating webhook leaves it), table
 * rows that patch a copy of it, cause builders, and a context with Deckhouse's gates.
 */
import { expect } from '@jest/globals';
import type { VirtualMachineInstanceSpec } from '../../v1/vmi-spec.ts';
import type { AdmissionCause, CauseType } from '../causes.ts';
import { DECKHOUSE_FEATURE_GATES, type ValidationContext } from '../context.ts';
import { validateVmiSpec } from '../vmi-spec.ts';

export type Spec = VirtualMachineInstanceSpec;
export type Patch = (spec: Spec) => void;
export type Row = [name: string, patch: Patch, expected: AdmissionCause[]];

export function validSpec(): Spec {
  return {
    architecture: 'amd64',
    domain: {
      machine: { type: 'q35' },
      resources: { requests: { memory: '1Gi', cpu: '1' } },
      memory: { guest: '1Gi' },
      cpu: { cores: 1, sockets: 1, threads: 1 },
      features: { acpi: { enabled: true } },
      devices: {
        disks: [{ name: 'root', disk: { bus: 'virtio' }, bootOrder: 1 }],
        interfaces: [{ name: 'default', masquerade: {} }],
      },
    },
    volumes: [{ name: 'root', containerDisk: { image: 'registry/img:1', imagePullPolicy: 'IfNotPresent' } }],
    networks: [{ name: 'default', pod: {} }],
  };
}

export function patched(patch: Patch, base: () => Spec = validSpec): Spec {
  const spec = base();
  patch(spec);
  return spec;
}

export function ctxWith(
  gates: readonly string[] = DECKHOUSE_FEATURE_GATES,
  over: Partial<ValidationContext> = {},
): ValidationContext {
  return { featureGates: new Set(gates), ...over };
}

export const cause = (type: CauseType, field: string, message: string): AdmissionCause => ({
  type,
  field,
  message,
});
export const inv = (field: string, message: string): AdmissionCause =>
  cause('FieldValueInvalid', field, message);
export const req = (field: string, message: string): AdmissionCause =>
  cause('FieldValueRequired', field, message);
export const ns = (field: string, message: string): AdmissionCause =>
  cause('FieldValueNotSupported', field, message);
export const dup = (field: string, message: string): AdmissionCause =>
  cause('FieldValueDuplicate', field, message);

/** A value outside its field's TypeScript type, as a client may send it (never fits any field). */
export function raw(value: unknown): never {
  return value as never;
}

/** One table row against validateVmiSpec under Deckhouse's gates (or `ctx`). */
export function checkSpecRow(
  patch: Patch,
  expected: AdmissionCause[],
  ctx: ValidationContext = ctxWith(),
): void {
  expect(validateVmiSpec(patched(patch), ctx)).toEqual(expected);
}
