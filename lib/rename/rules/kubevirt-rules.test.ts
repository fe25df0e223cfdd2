import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../kernel/errors/errors.ts';
import { KUBEVIRT } from '../testing/synthetic-rules.ts';
import { KUBEVIRT_REWRITE_RULES } from './kubevirt-rules.ts';
import { buildRuleIndex } from './rule-index.ts';

describe('KubeVirt rule set', () => {
  it('has the prefixes and the category of the Deckhouse module', () => {
    expect(KUBEVIRT_REWRITE_RULES).toMatchObject({
      kindPrefix: 'InternalVirtualization',
      resourceTypePrefix: 'internalvirtualization',
      shortNamePrefix: 'intvirt',
      categories: ['intvirt'],
    });
  });

  it.each([
    ['kubevirt.io', 'internal.virtualization.deckhouse.io', [['v1', 'v1alpha3'], 'v1'] as const, 6],
    [
      'clone.kubevirt.io',
      'clone.internal.virtualization.deckhouse.io',
      [['v1alpha1'], 'v1alpha1'] as const,
      1,
    ],
    [
      'export.kubevirt.io',
      'export.internal.virtualization.deckhouse.io',
      [['v1alpha1'], 'v1alpha1'] as const,
      1,
    ],
    [
      'instancetype.kubevirt.io',
      'instancetype.internal.virtualization.deckhouse.io',
      [['v1alpha1', 'v1alpha2'], 'v1alpha2'] as const,
      4,
    ],
    [
      'migrations.kubevirt.io',
      'migrations.internal.virtualization.deckhouse.io',
      [['v1alpha1'], 'v1alpha1'] as const,
      1,
    ],
    ['pool.kubevirt.io', 'pool.internal.virtualization.deckhouse.io', [['v1alpha1'], 'v1alpha1'] as const, 1],
    [
      'snapshot.kubevirt.io',
      'snapshot.internal.virtualization.deckhouse.io',
      [['v1alpha1'], 'v1alpha1'] as const,
      3,
    ],
  ])('group %s → %s', (group, renamed, [versions, preferred], resourceCount) => {
    const rule = KUBEVIRT_REWRITE_RULES.groups.find((g) => g.groupRule.group === group);
    expect(rule?.groupRule).toEqual({ group, renamed, versions, preferredVersion: preferred });
    expect(rule?.resources).toHaveLength(resourceCount);
    expect(KUBEVIRT.groupByRenamed.get(renamed)?.group).toBe(group);
  });

  it('has exactly the seven groups (cdi.kubevirt.io was removed upstream)', () => {
    expect(KUBEVIRT_REWRITE_RULES.groups.map((g) => g.groupRule.group).sort()).toEqual([
      'clone.kubevirt.io',
      'export.kubevirt.io',
      'instancetype.kubevirt.io',
      'kubevirt.io',
      'migrations.kubevirt.io',
      'pool.kubevirt.io',
      'snapshot.kubevirt.io',
    ]);
  });

  it.each<[string, string, string, { singular: string; shortNames: string[]; categories: string[] }]>([
    [
      'kubevirt.io',
      'KubeVirt',
      'kubevirts',
      { singular: 'kubevirt', shortNames: ['kv', 'kvs'], categories: ['all'] },
    ],
    [
      'kubevirt.io',
      'VirtualMachine',
      'virtualmachines',
      { singular: 'virtualmachine', shortNames: ['vm', 'vms'], categories: ['all'] },
    ],
    [
      'kubevirt.io',
      'VirtualMachineInstance',
      'virtualmachineinstances',
      { singular: 'virtualmachineinstance', shortNames: ['vmi', 'vmsi'], categories: ['all'] },
    ],
    [
      'kubevirt.io',
      'VirtualMachineInstanceMigration',
      'virtualmachineinstancemigrations',
      { singular: 'virtualmachineinstancemigration', shortNames: ['vmim', 'vmims'], categories: ['all'] },
    ],
    [
      'kubevirt.io',
      'VirtualMachineInstancePreset',
      'virtualmachineinstancepresets',
      {
        singular: 'virtualmachineinstancepreset',
        shortNames: ['vmipreset', 'vmipresets'],
        categories: ['all'],
      },
    ],
    [
      'kubevirt.io',
      'VirtualMachineInstanceReplicaSet',
      'virtualmachineinstancereplicasets',
      { singular: 'virtualmachineinstancereplicaset', shortNames: ['vmirs', 'vmirss'], categories: ['all'] },
    ],
    [
      'clone.kubevirt.io',
      'VirtualMachineClone',
      'virtualmachineclones',
      { singular: 'virtualmachineclone', shortNames: ['vmclone', 'vmclones'], categories: ['all'] },
    ],
    [
      'export.kubevirt.io',
      'VirtualMachineExport',
      'virtualmachineexports',
      { singular: 'virtualmachineexport', shortNames: ['vmexport', 'vmexports'], categories: ['all'] },
    ],
    [
      'instancetype.kubevirt.io',
      'VirtualMachineInstancetype',
      'virtualmachineinstancetypes',
      {
        singular: 'virtualmachineinstancetype',
        shortNames: ['vminstancetype', 'vminstancetypes', 'vmf', 'vmfs'],
        categories: ['all'],
      },
    ],
    [
      'instancetype.kubevirt.io',
      'VirtualMachinePreference',
      'virtualmachinepreferences',
      {
        singular: 'virtualmachinepreference',
        shortNames: ['vmpref', 'vmprefs', 'vmp', 'vmps'],
        categories: ['all'],
      },
    ],
    [
      'instancetype.kubevirt.io',
      'VirtualMachineClusterInstancetype',
      'virtualmachineclusterinstancetypes',
      {
        singular: 'virtualmachineclusterinstancetype',
        shortNames: ['vmclusterinstancetype', 'vmclusterinstancetypes', 'vmcf', 'vmcfs'],
        categories: [],
      },
    ],
    [
      'instancetype.kubevirt.io',
      'VirtualMachineClusterPreference',
      'virtualmachineclusterpreferences',
      { singular: 'virtualmachineclusterpreference', shortNames: ['vmcp', 'vmcps'], categories: [] },
    ],
    [
      'migrations.kubevirt.io',
      'MigrationPolicy',
      'migrationpolicies',
      { singular: 'migrationpolicy', shortNames: [], categories: ['all'] },
    ],
    [
      'pool.kubevirt.io',
      'VirtualMachinePool',
      'virtualmachinepools',
      { singular: 'virtualmachinepool', shortNames: ['vmpool', 'vmpools'], categories: ['all'] },
    ],
    [
      'snapshot.kubevirt.io',
      'VirtualMachineRestore',
      'virtualmachinerestores',
      { singular: 'virtualmachinerestore', shortNames: ['vmrestore', 'vmrestores'], categories: ['all'] },
    ],
    [
      'snapshot.kubevirt.io',
      'VirtualMachineSnapshotContent',
      'virtualmachinesnapshotcontents',
      {
        singular: 'virtualmachinesnapshotcontent',
        shortNames: ['vmsnapshotcontent', 'vmsnapshotcontents'],
        categories: ['all'],
      },
    ],
    [
      'snapshot.kubevirt.io',
      'VirtualMachineSnapshot',
      'virtualmachinesnapshots',
      { singular: 'virtualmachinesnapshot', shortNames: ['vmsnapshot', 'vmsnapshots'], categories: ['all'] },
    ],
  ])('%s %s: names and indexes both ways', (group, kind, plural, { singular, shortNames, categories }) => {
    const entry = KUBEVIRT.resourceByOriginal.get(`${group}/${plural}`);
    expect(entry?.resource).toMatchObject({
      kind,
      listKind: `${kind}List`,
      plural,
      singular,
      shortNames,
      categories,
    });
    const renamed = KUBEVIRT.groupByOriginal.get(group)?.renamed ?? '';
    expect(KUBEVIRT.resourceByRenamed.get(`${renamed}/internalvirtualization${plural}`)).toBe(entry);
    expect(KUBEVIRT.kindByOriginal.get(`${group}/${kind}List`)).toMatchObject({
      isList: true,
      resource: entry?.resource,
    });
    expect(KUBEVIRT.kindByRenamed.get(`${renamed}/InternalVirtualization${kind}`)).toMatchObject({
      isList: false,
    });
    expect(KUBEVIRT.originalKinds.get(kind)?.has(group)).toBe(true);
  });

  it('has 17 resources in all', () => {
    expect(KUBEVIRT.resourceByOriginal.size).toBe(17);
  });

  it('lists every webhook path with a group and resources that have rules (pods keep their names)', () => {
    const paths = Object.keys(KUBEVIRT_REWRITE_RULES.webhooks);
    expect(paths).toHaveLength(25);
    expect(KUBEVIRT_REWRITE_RULES.webhooks['/pod-eviction-validate']).toEqual({
      path: '/pod-eviction-validate',
      group: '',
      resource: 'pods/eviction',
    });
    for (const [path, rule] of Object.entries(KUBEVIRT_REWRITE_RULES.webhooks)) {
      expect(rule.path).toBe(path);
      if (rule.group === '') continue;
      for (const resource of rule.resource.split(',')) {
        expect(
          KUBEVIRT.resourceByOriginal.get(`${rule.group}/${resource.split('/')[0] ?? ''}`),
        ).toBeDefined();
      }
    }
    expect(KUBEVIRT_REWRITE_RULES.webhooks['/status-validate']?.resource).toBe(
      'virtualmachines/status,virtualmachineinstancereplicasets/status,virtualmachineinstancemigrations/status',
    );
  });

  it('renames node-feature label prefixes to *.node.virtualization.deckhouse.io, not internal', () => {
    const nodeRules = KUBEVIRT_REWRITE_RULES.labels.prefixes.filter((r) =>
      r.original.endsWith('.node.kubevirt.io'),
    );
    expect(nodeRules.map((r) => r.original.split('.')[0])).toEqual([
      'cpu-feature',
      'cpu-model-migration',
      'cpu-model',
      'cpu-timer',
      'cpu-vendor',
      'scheduling',
      'host-model-cpu',
      'host-model-required-features',
      'hyperv',
      'machine-type',
    ]);
    for (const r of nodeRules)
      expect(r.renamed).toBe(r.original.replace('.node.kubevirt.io', '.node.virtualization.deckhouse.io'));
  });

  it('refuses rules that name a renamed group twice', () => {
    const [first] = KUBEVIRT_REWRITE_RULES.groups;
    if (first === undefined) throw new Error('no groups');
    const dup = { ...first, groupRule: { ...first.groupRule, group: 'other.kubevirt.io' }, resources: [] };
    const build = (): unknown => buildRuleIndex({ ...KUBEVIRT_REWRITE_RULES, groups: [first, dup] });
    expect(build).toThrow(KvError);
    expect(build).toThrow(/duplicate entry internal.virtualization.deckhouse.io/);
  });
});
