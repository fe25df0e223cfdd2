/**
 * Memory and CPU amounts of a VMI spec (KubeVirt vmi-create-admitter.go: validateMemoryRequestsNegativeOrNull,
 * validateMemoryLimitsNegativeOrNull, validateHugepagesMemoryRequests, validateGuestMemoryLimit,
 * validateCPURequestNotNegative, validateCPULimitNotNegative, validateCpuRequestDoesNotExceedLimit and, for
 * VMIs only, ValidateVirtualMachineInstanceMandatoryFields). Quantities print canonically, as Go's %s does.
 */
import { quantityProblem } from '../quantity.ts';
import type { Quantity } from '../schema/dsl.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { child, invalid, required, type Causes } from './causes.ts';
import { clusterOf } from './context.ts';
import { compareQuantities, quantityInt, quantityMilli, quantityText } from './quantities.ts';
import type { SpecRule } from './rule.ts';

const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

type Spec = VirtualMachineInstanceSpec;
type Kind = 'requests' | 'limits';

const amount = (spec: Spec, kind: Kind, name: string): Quantity | undefined =>
  spec.domain.resources?.[kind]?.[name];
const resourceField = (path: string, kind: Kind, name: string): string =>
  child(path, 'domain', 'resources', kind, name);

function notNegative(spec: Spec, path: string, kind: Kind, name: 'memory' | 'cpu'): Causes {
  const q = amount(spec, kind, name);
  const negative = name === 'memory' ? quantityInt(q) < 0n : quantityMilli(q) < 0n;
  if (!negative) return [];
  const f = resourceField(path, kind, name);
  return [invalid(f, `${f} '${quantityText(q)}': must be greater than or equal to 0.`)];
}

function greaterThan(spec: Spec, path: string, name: 'memory' | 'cpu'): Causes {
  const req = amount(spec, 'requests', name);
  const lim = amount(spec, 'limits', name);
  const read = name === 'memory' ? quantityInt : quantityMilli;
  if (!(read(lim) > 0n && read(req) > read(lim))) return [];
  const reqF = resourceField(path, 'requests', name);
  const limF = resourceField(path, 'limits', name);
  return [invalid(reqF, `${reqF} '${quantityText(req)}' is greater than ${limF} '${quantityText(lim)}'`)];
}

export const memoryRequests: SpecRule = (spec, _ctx, path) => {
  const negative = notNegative(spec, path, 'requests', 'memory');
  if (negative.length > 0) return negative;
  const req = amount(spec, 'requests', 'memory');
  if (!(quantityInt(req) > 0n && compareQuantities(req, '1M') < 0)) return [];
  const f = resourceField(path, 'requests', 'memory');
  return [invalid(f, `${f} '${quantityText(req)}': must be greater than or equal to 1M.`)];
};

export const memoryLimits: SpecRule = (spec, _ctx, path) => [
  ...notNegative(spec, path, 'limits', 'memory'),
  ...greaterThan(spec, path, 'memory'),
];

export const hugepagesRequests: SpecRule = (spec, _ctx, path) => {
  const pageSize = spec.domain.memory?.hugepages?.pageSize;
  if (pageSize === undefined) return [];
  const sizeF = child(path, 'domain', 'hugepages', 'size');
  if (quantityProblem(pageSize) !== undefined) {
    return [invalid(sizeF, `${sizeF} '${pageSize}': ${QUANTITY_FORMAT_ERROR}`)];
  }
  const req = amount(spec, 'requests', 'memory');
  const memory = quantityInt(req);
  const page = quantityInt(pageSize);
  const reqF = resourceField(path, 'requests', 'memory');
  const shown = `${reqF} '${quantityText(req)}'`;
  if (memory < page) {
    return [invalid(reqF, `${shown} must be equal to or larger than page size ${sizeF} '${pageSize}'`)];
  }
  if (page !== 0n && memory % page !== 0n) {
    return [invalid(reqF, `${shown} is not a multiple of the page size ${sizeF} '${pageSize}'`)];
  }
  return [];
};

export const guestMemoryLimit: SpecRule = (spec, ctx, path) => {
  const guest = spec.domain.memory?.guest;
  if (clusterOf(ctx).vmRolloutStrategy === 'LiveUpdate' || guest === undefined) return [];
  const lim = amount(spec, 'limits', 'memory');
  const limit = quantityInt(lim);
  if (!(limit < quantityInt(guest) && limit !== 0n)) return [];
  const guestF = child(path, 'domain', 'memory', 'guest');
  const limF = resourceField(path, 'limits', 'memory');
  return [
    invalid(
      guestF,
      `${guestF} '${quantityText(guest)}' must be equal to or less than the memory limit ${limF} '${quantityText(lim)}'`,
    ),
  ];
};

export const cpuRequestNotNegative: SpecRule = (spec, _ctx, path) =>
  notNegative(spec, path, 'requests', 'cpu');

export const cpuLimitNotNegative: SpecRule = (spec, _ctx, path) => notNegative(spec, path, 'limits', 'cpu');

export const cpuRequestWithinLimit: SpecRule = (spec, _ctx, path) => greaterThan(spec, path, 'cpu');

/** VMIs only, after defaulting: some memory must be asked for. The cause has no field, as KubeVirt's. */
export const memoryRequested: SpecRule = (spec, _ctx, path) => {
  if (quantityInt(amount(spec, 'requests', 'memory')) !== 0n) return [];
  const memory = spec.domain.memory;
  if (memory !== undefined && (memory.guest !== undefined || memory.hugepages !== undefined)) return [];
  const guest = child(path, 'domain', 'memory', 'guest');
  const hugepages = child(path, 'domain', 'memory', 'hugepages', 'size');
  const requests = resourceField(path, 'requests', 'memory');
  return [
    required(
      '',
      `no memory requested, at least one of '${guest}', '${hugepages}' or '${requests}' must be set`,
    ),
  ];
};
