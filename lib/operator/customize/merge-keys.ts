/**
 * What a strategic merge patch needs to know of each kind the operator generates: the lists that merge
 * (the `patchStrategy:"merge"` fields of k8s.io/api, with their `patchMergeKey`) and the objects a patch
 * replaces whole (`patchStrategy:"replace"`), by path. Every other list is atomic (the patch's list replaces
 * it: tolerations, args, command, rules, subjects…) and every other object merges member by member.
 * apimachinery's strategicpatch reads the same tags from the Go structs (LookupPatchMetadataForStruct).
 *
 * A path joins field names with dots; `[]` stands for the items of a list: `spec.template.spec.containers[].env`.
 */

export interface KindSchema {
  /** Merging lists by path, with their merge key ('' for a list of scalars, merged as a set). */
  readonly lists: ReadonlyMap<string, string>;
  /** Objects a patch replaces instead of merging into. */
  readonly replaced: ReadonlySet<string>;
}

type Keys = Readonly<Record<string, string>>;

/** ObjectMeta. */
const META: Keys = { ownerReferences: 'uid', finalizers: '' };

/** Container and EphemeralContainer. */
const CONTAINER: Keys = {
  ports: 'containerPort',
  env: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
};

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** PodSpec. */
const POD_SPEC: Keys = {
  volumes: 'name',
  ...Object.fromEntries(CONTAINER_LISTS.map((list) => [list, 'name'])),
  ...Object.fromEntries(
    CONTAINER_LISTS.flatMap((list) => Object.entries(CONTAINER).map(([f, key]) => [`${list}[].${f}`, key])),
  ),
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  schedulingGates: 'name',
  resourceClaims: 'name',
};

const under = (path: string, keys: Keys): [string, string][] =>
  Object.entries(keys).map(([f, key]) => [`${path}.${f}`, key]);

const WORKLOAD = [...under('spec.template.metadata', META), ...under('spec.template.spec', POD_SPEC)];

const WEBHOOKS: [string, string][] = [
  ['webhooks', 'name'],
  ['webhooks[].matchConditions', 'name'],
];

/** Merging lists besides metadata's, by kind. */
const LISTS: Readonly<Record<string, readonly [string, string][]>> = {
  Deployment: WORKLOAD,
  DaemonSet: WORKLOAD,
  Service: [['spec.ports', 'port']],
  ServiceAccount: [['secrets', 'name']],
  ConfigMap: [],
  Secret: [],
  ClusterRole: [],
  ClusterRoleBinding: [],
  Role: [],
  RoleBinding: [],
  ValidatingWebhookConfiguration: WEBHOOKS,
  MutatingWebhookConfiguration: WEBHOOKS,
  APIService: [],
  PodDisruptionBudget: [],
};

const REPLACED: Readonly<Record<string, readonly string[]>> = {
  PodDisruptionBudget: ['spec.selector'],
};

/** The schema of a kind; undefined for a kind this table does not know. */
export function schemaFor(kind: string): KindSchema | undefined {
  if (!Object.hasOwn(LISTS, kind)) return undefined;
  const lists = LISTS[kind] ?? [];
  return {
    lists: new Map([...under('metadata', META), ...lists]),
    replaced: new Set(Object.hasOwn(REPLACED, kind) ? REPLACED[kind] : []),
  };
}
