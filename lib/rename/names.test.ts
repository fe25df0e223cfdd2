import { describe, expect, it } from '@jest/globals';
import {
  rewriteApiVersion,
  rewriteCategories,
  rewriteCrdName,
  rewriteGroup,
  rewriteGroupKind,
  rewriteResource,
  rewriteShortName,
  shortNameEntryOf,
  splitApiVersion,
} from './names.ts';
import { KUBEVIRT, kvRename, kvRestore, synRename, synRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

describe('group and apiVersion', () => {
  it.each([
    ['kubevirt.io', IG],
    ['snapshot.kubevirt.io', `snapshot.${IG}`],
    ['apps', 'apps'],
    ['', ''],
  ])('group %s ↔ %s', (original, renamed) => {
    expect(rewriteGroup(original, kvRename)).toBe(renamed);
    expect(rewriteGroup(renamed, kvRestore)).toBe(original);
  });

  it.each([
    ['kubevirt.io/v1', `${IG}/v1`],
    ['kubevirt.io/v1alpha3', `${IG}/v1alpha3`],
    ['pool.kubevirt.io/v1alpha1', `pool.${IG}/v1alpha1`],
    ['v1', 'v1'],
    ['apps/v1', 'apps/v1'],
  ])('apiVersion %s ↔ %s', (original, renamed) => {
    expect(rewriteApiVersion(original, kvRename)).toBe(renamed);
    expect(rewriteApiVersion(renamed, kvRestore)).toBe(original);
  });

  it('splits apiVersion', () => {
    expect(splitApiVersion('v1')).toEqual(['', 'v1']);
    expect(splitApiVersion('kubevirt.io/v1')).toEqual(['kubevirt.io', 'v1']);
  });
});

describe('kinds, resources, short names, categories, CRD names', () => {
  it.each([
    ['kubevirt.io', 'VirtualMachine', IG, 'InternalVirtualizationVirtualMachine'],
    ['kubevirt.io', 'VirtualMachineInstanceList', IG, 'InternalVirtualizationVirtualMachineInstanceList'],
    [
      'instancetype.kubevirt.io',
      'VirtualMachineClusterPreference',
      `instancetype.${IG}`,
      'InternalVirtualizationVirtualMachineClusterPreference',
    ],
  ])('kind %s %s ↔ %s %s', (group, kind, group2, kind2) => {
    expect(rewriteGroupKind(group, kind, kvRename)).toEqual({ group: group2, kind: kind2 });
    expect(rewriteGroupKind(group2, kind2, kvRestore)).toEqual({ group, kind });
  });

  it.each([
    ['kubevirt.io', 'Pod'],
    ['apps', 'VirtualMachine'],
    ['clone.kubevirt.io', 'VirtualMachine'],
  ])('kind without a rule: %s %s', (group, kind) => {
    expect(rewriteGroupKind(group, kind, kvRename)).toBeUndefined();
  });

  it.each([
    ['kubevirt.io', 'virtualmachines', 'internalvirtualizationvirtualmachines'],
    ['kubevirt.io', 'virtualmachineinstances/status', 'internalvirtualizationvirtualmachineinstances/status'],
    [
      'kubevirt.io',
      'virtualmachineinstancereplicasets/scale',
      'internalvirtualizationvirtualmachineinstancereplicasets/scale',
    ],
    ['kubevirt.io', 'pods', 'pods'],
    ['apps', 'deployments', 'deployments'],
  ])('resource %s %s → %s', (group, resource, renamed) => {
    expect(rewriteResource(group, resource, kvRename)).toBe(renamed);
    const renamedGroup = rewriteGroup(group, kvRename);
    expect(rewriteResource(renamedGroup, renamed, kvRestore)).toBe(resource);
  });

  it.each([
    ['vm', 'intvirtvm'],
    ['vmis', 'intvirtvmis'],
  ])('short name %s ↔ %s', (short, renamed) => {
    expect(rewriteShortName(short, kvRename)).toBe(renamed);
    expect(rewriteShortName(renamed, kvRestore)).toBe(short);
  });

  it.each([
    ['vm', 'virtualmachines'],
    ['vmsi', 'virtualmachineinstances'],
    ['vmcps', 'virtualmachineclusterpreferences'],
  ])('short name %s stands for %s, on both sides', (short, plural) => {
    expect(shortNameEntryOf(short, kvRename)?.resource.plural).toBe(plural);
    expect(shortNameEntryOf(`intvirt${short}`, kvRestore)?.resource.plural).toBe(plural);
    expect(shortNameEntryOf(short, kvRestore)).toBeUndefined();
  });

  it('leaves a short name without the prefix alone on restore', () => {
    expect(rewriteShortName('vm', kvRestore)).toBe('vm');
  });

  it('maps categories to the rule set and back to the resource', () => {
    const vm = KUBEVIRT.resourceByOriginal.get('kubevirt.io/virtualmachines');
    if (!vm) throw new Error('no vm rule');
    expect(rewriteCategories(['all'], vm, kvRename)).toEqual(['intvirt']);
    expect(rewriteCategories(['intvirt'], vm, kvRestore)).toEqual(['all']);
    expect(rewriteCategories([], vm, kvRename)).toEqual([]);
  });

  it.each([
    ['virtualmachines.kubevirt.io', `internalvirtualizationvirtualmachines.${IG}`],
    ['virtualmachineclones.clone.kubevirt.io', `internalvirtualizationvirtualmachineclones.clone.${IG}`],
    ['migrationpolicies.migrations.kubevirt.io', `internalvirtualizationmigrationpolicies.migrations.${IG}`],
    ['foos.kubevirt.io', 'foos.kubevirt.io'],
    ['virtualdisks.virtualization.deckhouse.io', 'virtualdisks.virtualization.deckhouse.io'],
    ['nodots', 'nodots'],
  ])('CRD name %s ↔ %s', (original, renamed) => {
    expect(rewriteCrdName(original, kvRename)).toBe(renamed);
    expect(rewriteCrdName(renamed, kvRestore)).toBe(original);
  });

  it('works with the synthetic rules', () => {
    expect(rewriteCrdName('someresources.original.group.io', synRename)).toBe(
      'prefixedsomeresources.prefixed.resources.group.io',
    );
    expect(
      rewriteGroupKind('other.prefixed.resources.group.io', 'PrefixedOtherResource', synRestore),
    ).toEqual({
      group: 'other.group.io',
      kind: 'OtherResource',
    });
  });
});
