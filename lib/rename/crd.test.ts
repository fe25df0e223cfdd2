import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from './document.ts';
import { SKIP } from './json.ts';
import { deepFreeze, kvRename, kvRestore, synRename, synRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

function crd(
  name: string,
  group: string,
  names: Record<string, unknown>,
  labels: Record<string, string> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, labels },
    spec: { group, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true }] },
    status: { acceptedNames: names },
  };
}

const vmNames = {
  kind: 'VirtualMachine',
  listKind: 'VirtualMachineList',
  plural: 'virtualmachines',
  singular: 'virtualmachine',
  shortNames: ['vm', 'vms'],
  categories: ['all'],
};
const vmRenamedNames = {
  kind: 'InternalVirtualizationVirtualMachine',
  listKind: 'InternalVirtualizationVirtualMachineList',
  plural: 'internalvirtualizationvirtualmachines',
  singular: 'internalvirtualizationvirtualmachine',
  shortNames: ['intvirtvm', 'intvirtvms'],
  categories: ['intvirt'],
};

describe('CustomResourceDefinitions', () => {
  const original = crd('virtualmachines.kubevirt.io', 'kubevirt.io', vmNames, {
    'operator.kubevirt.io': 'x',
  });
  const renamed = crd(`internalvirtualizationvirtualmachines.${IG}`, IG, vmRenamedNames, {
    [`operator.kubevirt.${IG}`]: 'x',
  });

  it('renames name, group, names and accepted names', () => {
    expect(rewriteDocument(deepFreeze(structuredClone(original)), kvRename)).toEqual(renamed);
  });

  it('restores them', () => {
    expect(rewriteDocument(deepFreeze(structuredClone(renamed)), kvRestore)).toEqual(original);
  });

  it('skips a CRD that exists on the server under its original name', () => {
    expect(rewriteDocument(original, kvRestore)).toBe(SKIP);
  });

  it('drops such CRDs from lists and restores the others', () => {
    const list = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinitionList',
      metadata: {},
      items: [renamed, original],
    };
    expect(rewriteDocument(deepFreeze(structuredClone(list)), kvRestore)).toEqual({
      ...list,
      items: [original],
    });
  });

  it('leaves CRDs without rules alone', () => {
    const other = deepFreeze(
      crd('virtualdisks.virtualization.deckhouse.io', 'virtualization.deckhouse.io', { kind: 'VirtualDisk' }),
    );
    expect(rewriteDocument(other, kvRename)).toBe(other);
    expect(rewriteDocument(other, kvRestore)).toBe(other);
  });

  it('synthetic rules: as in the Go test, with absent names fields left absent', () => {
    const partial = crd('someresources.original.group.io', 'original.group.io', {
      kind: 'SomeResource',
      plural: 'someresources',
    });
    const out = rewriteDocument(partial, synRename);
    expect(out).toMatchObject({
      metadata: { name: 'prefixedsomeresources.prefixed.resources.group.io' },
      spec: {
        group: 'prefixed.resources.group.io',
        names: { kind: 'PrefixedSomeResource', plural: 'prefixedsomeresources' },
      },
    });
    expect(rewriteDocument(out, synRestore)).toEqual(partial);
  });
});
