/**
 * The KubeVirt API groups and resources as stored under internal.virtualization.deckhouse.io
 * (deckhouse/virtualization src/kubevirt-rules/kubevirt_rules.go, KubevirtAPIGroupsRules).
 */
import type { ApiGroupRule, ResourceRule } from './types.ts';

export const INTERNAL_GROUP = 'internal.virtualization.deckhouse.io';

interface ResourceSpec {
  readonly kind: string;
  readonly plural: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

/** listKind is `<kind>List` and singular is the lower-cased kind for every KubeVirt resource. */
function resources(
  versions: readonly string[],
  preferredVersion: string,
  specs: readonly ResourceSpec[],
): ResourceRule[] {
  return specs.map((s) => ({
    kind: s.kind,
    listKind: `${s.kind}List`,
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    shortNames: s.shortNames,
    categories: s.categories,
    versions,
    preferredVersion,
  }));
}

interface GroupSpec {
  readonly group: string;
  readonly renamed: string;
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

function group(spec: GroupSpec, specs: readonly ResourceSpec[]): ApiGroupRule {
  return { groupRule: spec, resources: resources(spec.versions, spec.preferredVersion, specs) };
}

const v1alpha1 = { versions: ['v1alpha1'], preferredVersion: 'v1alpha1' } as const;

const ALL = ['all'] as const;
const NONE: readonly string[] = [];

export const KUBEVIRT_API_GROUPS: readonly ApiGroupRule[] = [
  group(
    { group: 'kubevirt.io', renamed: INTERNAL_GROUP, versions: ['v1', 'v1alpha3'], preferredVersion: 'v1' },
    [
      { kind: 'KubeVirt', plural: 'kubevirts', shortNames: ['kv', 'kvs'], categories: ALL },
      { kind: 'VirtualMachine', plural: 'virtualmachines', shortNames: ['vm', 'vms'], categories: ALL },
      {
        kind: 'VirtualMachineInstance',
        plural: 'virtualmachineinstances',
        shortNames: ['vmi', 'vmsi'],
        categories: ALL,
      },
      {
        kind: 'VirtualMachineInstanceMigration',
        plural: 'virtualmachineinstancemigrations',
        shortNames: ['vmim', 'vmims'],
        categories: ALL,
      },
      {
        kind: 'VirtualMachineInstancePreset',
        plural: 'virtualmachineinstancepresets',
        shortNames: ['vmipreset', 'vmipresets'],
        categories: ALL,
      },
      {
        kind: 'VirtualMachineInstanceReplicaSet',
        plural: 'virtualmachineinstancereplicasets',
        shortNames: ['vmirs', 'vmirss'],
        categories: ALL,
      },
    ],
  ),
  group({ group: 'clone.kubevirt.io', renamed: `clone.${INTERNAL_GROUP}`, ...v1alpha1 }, [
    {
      kind: 'VirtualMachineClone',
      plural: 'virtualmachineclones',
      shortNames: ['vmclone', 'vmclones'],
      categories: ALL,
    },
  ]),
  group({ group: 'export.kubevirt.io', renamed: `export.${INTERNAL_GROUP}`, ...v1alpha1 }, [
    {
      kind: 'VirtualMachineExport',
      plural: 'virtualmachineexports',
      shortNames: ['vmexport', 'vmexports'],
      categories: ALL,
    },
  ]),
  group(
    {
      group: 'instancetype.kubevirt.io',
      renamed: `instancetype.${INTERNAL_GROUP}`,
      versions: ['v1alpha1', 'v1alpha2'],
      preferredVersion: 'v1alpha2',
    },
    [
      {
        kind: 'VirtualMachineInstancetype',
        plural: 'virtualmachineinstancetypes',
        shortNames: ['vminstancetype', 'vminstancetypes', 'vmf', 'vmfs'],
        categories: ALL,
      },
      {
        kind: 'VirtualMachinePreference',
        plural: 'virtualmachinepreferences',
        shortNames: ['vmpref', 'vmprefs', 'vmp', 'vmps'],
        categories: ALL,
      },
      {
        kind: 'VirtualMachineClusterInstancetype',
        plural: 'virtualmachineclusterinstancetypes',
        shortNames: ['vmclusterinstancetype', 'vmclusterinstancetypes', 'vmcf', 'vmcfs'],
        categories: NONE,
      },
      {
        kind: 'VirtualMachineClusterPreference',
        plural: 'virtualmachineclusterpreferences',
        shortNames: ['vmcp', 'vmcps'],
        categories: NONE,
      },
    ],
  ),
  group({ group: 'migrations.kubevirt.io', renamed: `migrations.${INTERNAL_GROUP}`, ...v1alpha1 }, [
    { kind: 'MigrationPolicy', plural: 'migrationpolicies', shortNames: NONE, categories: ALL },
  ]),
  group({ group: 'pool.kubevirt.io', renamed: `pool.${INTERNAL_GROUP}`, ...v1alpha1 }, [
    {
      kind: 'VirtualMachinePool',
      plural: 'virtualmachinepools',
      shortNames: ['vmpool', 'vmpools'],
      categories: ALL,
    },
  ]),
  group({ group: 'snapshot.kubevirt.io', renamed: `snapshot.${INTERNAL_GROUP}`, ...v1alpha1 }, [
    {
      kind: 'VirtualMachineRestore',
      plural: 'virtualmachinerestores',
      shortNames: ['vmrestore', 'vmrestores'],
      categories: ALL,
    },
    {
      kind: 'VirtualMachineSnapshotContent',
      plural: 'virtualmachinesnapshotcontents',
      shortNames: ['vmsnapshotcontent', 'vmsnapshotcontents'],
      categories: ALL,
    },
    {
      kind: 'VirtualMachineSnapshot',
      plural: 'virtualmachinesnapshots',
      shortNames: ['vmsnapshot', 'vmsnapshots'],
      categories: ALL,
    },
  ]),
];
