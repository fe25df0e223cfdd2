/**
 * The parts of a KubeVirt spec the operator installs from, each checked and defaulted as KubeVirt does
 * (util/config.go GetImagePullPolicy, apply/certificates.go, apply/patches.go applyPatch, the infra replicas
 * and uninstall strategy rules of its webhooks): a value with the causes that refuse it, each cause naming its
 * field. Pure.
 */
import { errorMessage } from '../../kernel/errors/errors.ts';
import { invalid, notSupported, type Causes } from '../../kubevirt/validation/causes.ts';
import {
  selfSignedCauses,
  selfSignedRotation,
  type KubeVirtView,
  type PlacementView,
  type TolerationView,
} from '../../kubevirt/validation/index.ts';
import type { CertificateRotation, ComponentPatch, Placement, Toleration } from './install-config.ts';

export interface Checked<T> {
  readonly value: T;
  readonly causes: Causes;
}

const ok = <T>(value: T): Checked<T> => ({ value, causes: [] });

function unsupported(field: string, value: string, allowed: readonly string[]): Causes[number] {
  const supported = allowed.map((v) => JSON.stringify(v)).join(', ');
  return notSupported(field, `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`);
}

/** `value` if it is one of `allowed` ('' or absent: `fallback`), else the fallback and a NotSupported cause. */
export function oneOf<T extends string>(
  field: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): Checked<T> {
  if (value === undefined || value === '') return ok(fallback);
  const known = allowed.find((a) => a === value);
  return known !== undefined ? ok(known) : { value: fallback, causes: [unsupported(field, value, allowed)] };
}

const OPERATORS = ['Exists', 'Equal'] as const;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

function toleration(t: TolerationView, field: string): Checked<Toleration> {
  const operator = oneOf(`${field}.operator`, t.operator, OPERATORS, 'Equal');
  const effect = oneOf(`${field}.effect`, t.effect, EFFECTS, 'NoSchedule');
  const value: Toleration = {
    ...(t.key !== undefined && { key: t.key }),
    ...(t.operator !== undefined && t.operator !== '' && { operator: operator.value }),
    ...(t.value !== undefined && { value: t.value }),
    ...(t.effect !== undefined && t.effect !== '' && { effect: effect.value }),
    ...(t.tolerationSeconds !== undefined && { tolerationSeconds: t.tolerationSeconds }),
  };
  return { value, causes: [...operator.causes, ...effect.causes] };
}

/** spec.infra or spec.workloads nodePlacement: nodeSelector, tolerations, affinity (absent: none). */
export function placement(p: PlacementView | undefined, field: string): Checked<Placement> {
  const tolerations = (p?.tolerations ?? []).map((t, i) => toleration(t, `${field}.tolerations[${i}]`));
  return {
    value: {
      nodeSelector: { ...p?.nodeSelector },
      tolerations: tolerations.map((t) => t.value),
      ...(p?.affinity !== undefined && { affinity: p.affinity }),
    },
    causes: tolerations.flatMap((t) => t.causes),
  };
}

/** spec.infra.replicas: 2 unless given; KubeVirt's webhook refuses 0. */
export function infraReplicas(view: KubeVirtView): Checked<number> {
  const replicas = view.infra?.replicas;
  if (replicas === undefined) return ok(2);
  return replicas === 0
    ? { value: 2, causes: [invalid('spec.infra.replicas', "infra replica count can't be 0")] }
    : ok(replicas);
}

const NS_PER_S = 1e9;
const SELF_SIGNED = 'spec.certificateRotateStrategy.selfSigned';

/** certificateRotateStrategy.selfSigned in seconds, KubeVirt's defaults for what is absent. */
export function certificateRotation(view: KubeVirtView): Checked<CertificateRotation> {
  const r = selfSignedRotation(view.selfSigned ?? {});
  const causes = view.selfSigned === undefined ? [] : selfSignedCauses(view.selfSigned);
  if (r.ca <= 0 || r.cert <= 0 || r.caRenew < 0 || r.certRenew < 0) {
    const message = 'durations must be greater than zero and renewBefore must not be negative';
    causes.push(invalid(SELF_SIGNED, message));
  }
  const seconds = (ns: number): number => Math.floor(ns / NS_PER_S);
  return {
    value: {
      caValiditySeconds: seconds(r.ca),
      caRenewBeforeSeconds: seconds(r.caRenew),
      certValiditySeconds: seconds(r.cert),
      certRenewBeforeSeconds: seconds(r.certRenew),
    },
    causes,
  };
}

const PATCH_TYPES = ['json', 'merge', 'strategic'] as const;

/** Why a patch's text cannot be a patch of its type, if it cannot. */
function patchProblem(text: string, type: ComponentPatch['type']): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return `not valid JSON: ${errorMessage(err)}`;
  }
  if (type === 'json') return Array.isArray(parsed) ? undefined : 'a json patch must be a list of operations';
  const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  return isObject ? undefined : `a ${type} patch must be an object`;
}

/** customizeComponents.patches: each of a known type and a patch of that type (a refused one is left out). */
export function componentPatches(view: KubeVirtView): Checked<ComponentPatch[]> {
  const value: ComponentPatch[] = [];
  const causes: Causes = [];
  view.patches.forEach((p, i) => {
    const at = `spec.customizeComponents.patches[${i}]`;
    const type = PATCH_TYPES.find((t) => t === p.type);
    const problem = type === undefined ? undefined : patchProblem(p.patch, type);
    if (type === undefined) causes.push(unsupported(`${at}.type`, p.type, PATCH_TYPES));
    else if (problem !== undefined) causes.push(invalid(`${at}.patch`, problem));
    else value.push({ ...p, type });
  });
  return { value, causes };
}
