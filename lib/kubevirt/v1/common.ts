/**
 * Pieces shared by several kubevirt.io/v1 kinds: conditions, resource lists, tolerations, dry-run lists and the
 * references KubeVirt reuses from core/v1.
 */
import { s, type Infer, type Schema } from '../schema/dsl.ts';

const conditionStatus = s.enum(['True', 'False', 'Unknown']);
type ConditionStatus = Infer<typeof conditionStatus>;

/** One of T, or any other string: what a field holds when the schema does not restrict it. */
export type OpenString<T extends string> = T | (string & Record<never, never>);

export interface Condition<T extends string> {
  type: OpenString<T>;
  status: ConditionStatus;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/**
 * A condition whose type is normally one of T. The schema keeps `type` a free string, as KubeVirt does, so a
 * newer writer's condition types are not rejected.
 */
export function condition<T extends string>(): Schema<Condition<T>> {
  return s.object({
    type: s.string().required(),
    status: conditionStatus.required(),
    lastProbeTime: s.dateTime().nullable(),
    lastTransitionTime: s.dateTime().nullable(),
    reason: s.string(),
    message: s.string(),
  });
}

/** core/v1 ResourceList: resource name → quantity. */
export const resourceList = s.map(s.quantity({ nonNegative: true }));
export type ResourceList = Infer<typeof resourceList>;

/** dryRun on subresource bodies: ["All"] or absent. */
export const dryRun = s.array(s.string(), { listType: 'atomic' });

export const toleration = s.object({
  key: s.string(),
  /** Exists or Equal (empty means Equal). */
  operator: s.string(),
  value: s.string(),
  /** NoSchedule, PreferNoSchedule or NoExecute; empty matches every effect. */
  effect: s.string(),
  tolerationSeconds: s.int('int64'),
});

/** core/v1 LocalObjectReference as KubeVirt embeds it (name defaults to ""). */
export const localObjectReference = s.object({ name: s.string() });

export const imagePullPolicy = s.enum(['Always', 'IfNotPresent', 'Never']);

/** Rounded topology KubeVirt reports and defaults: sockets × cores × threads. */
export const cpuTopology = s.object({
  cores: s.uint32(),
  sockets: s.uint32(),
  threads: s.uint32(),
});

export const machine = s.object({ type: s.string() });

/** A field that is an object of free shape (core/v1 types KubeVirt embeds whole, e.g. Affinity, Probe). */
export const opaque = s.preserve();

/**
 * metav1.ObjectMeta, the fields a role reads. Not part of any CRD (the API server validates metadata itself):
 * used to check objects that arrive from elsewhere (a file, a gRPC request).
 */
export const objectMeta = s.object({
  name: s.string(),
  generateName: s.string(),
  namespace: s.string(),
  uid: s.string(),
  resourceVersion: s.string(),
  generation: s.int('int64'),
  creationTimestamp: s.dateTime().nullable(),
  deletionTimestamp: s.dateTime().nullable(),
  deletionGracePeriodSeconds: s.int('int64'),
  labels: s.map(s.string()),
  annotations: s.map(s.string()),
  finalizers: s.array(s.string()),
  ownerReferences: s.array(
    s.object({
      apiVersion: s.string().required(),
      kind: s.string().required(),
      name: s.string().required(),
      uid: s.string().required(),
      controller: s.bool(),
      blockOwnerDeletion: s.bool(),
    }),
  ),
});
