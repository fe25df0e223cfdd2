import { describe, expect, it } from '@jest/globals';
import { isList, listItemRewriter, rewriteDocument, rewriteList, rewriteListEnvelope } from './document.ts';
import { isSkip, mapArray, SKIP } from './json.ts';
import { rewriteObject } from './object.ts';
import { deepFreeze, kvRename, kvRestore, synRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;

const vm = (
  apiVersion: string,
  kind: string,
  labelKey: string,
  extra: object = {},
): Record<string, unknown> => ({
  apiVersion,
  kind,
  metadata: {
    name: 'vm1',
    namespace: 'ns',
    labels: { [labelKey]: 'vm1' },
    managedFields: [{ apiVersion, manager: 'virt-controller', operation: 'Update' }],
  },
  spec: { running: true, template: { metadata: { labels: { 'kubevirt.io/vm': 'vm1' } } } },
  ...extra,
});

describe('custom resources', () => {
  const original = vm('kubevirt.io/v1', 'VirtualMachine', 'kubevirt.io/vm');
  const renamed = vm(`${IG}/v1`, 'InternalVirtualizationVirtualMachine', `${INT}/vm`);

  it('renames apiVersion, kind, metadata and managedFields, not the spec', () => {
    expect(rewriteDocument(deepFreeze(structuredClone(original)), kvRename)).toEqual(renamed);
  });

  it('restores them', () => {
    expect(rewriteDocument(deepFreeze(structuredClone(renamed)), kvRestore)).toEqual(original);
  });

  it('restores lists and their items', () => {
    const list = {
      apiVersion: `${IG}/v1`,
      kind: 'InternalVirtualizationVirtualMachineList',
      metadata: { resourceVersion: '5' },
      items: [renamed, renamed],
    };
    expect(rewriteDocument(deepFreeze(structuredClone(list)), kvRestore)).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineList',
      metadata: { resourceVersion: '5' },
      items: [original, original],
    });
  });

  it('leaves kinds of unknown groups alone (the known kind name alone is not enough)', () => {
    const other = deepFreeze(vm('other.product.group.io/v1alpha1', 'VirtualMachine', 'app'));
    expect(rewriteDocument(other, kvRename)).toBe(other);
    expect(rewriteDocument(other, kvRestore)).toBe(other);
  });

  it('shares what it does not change and never mutates its input', () => {
    const input = deepFreeze(structuredClone(renamed));
    const out = rewriteDocument(input, kvRestore) as Record<string, unknown>;
    expect(out['spec']).toBe(input['spec']);
  });
});

describe('exclusion on restore', () => {
  const realVm = vm('kubevirt.io/v1', 'VirtualMachine', 'app');
  const ourVm = vm(`${IG}/v1`, 'InternalVirtualizationVirtualMachine', 'app');

  it('a single object of an original kind is SKIP (the caller answers 404)', () => {
    expect(rewriteDocument(realVm, kvRestore)).toBe(SKIP);
    expect(rewriteDocument(realVm, kvRename)).not.toBe(SKIP);
  });

  it('is dropped from a list', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [realVm, ourVm] };
    const out = rewriteDocument(list, kvRestore) as { items: unknown[] };
    expect(out.items).toHaveLength(1);
    expect(out.items[0]).toMatchObject({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine' });
  });

  it('a whole list of an original list kind is SKIP', () => {
    expect(
      rewriteDocument({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineList', items: [] }, kvRestore),
    ).toBe(SKIP);
  });

  it('a Deckhouse VirtualMachine of another group is kept', () => {
    const dvp = deepFreeze(vm('virtualization.deckhouse.io/v1alpha2', 'VirtualMachine', 'app'));
    expect(rewriteDocument(dvp, kvRestore)).toBe(dvp);
  });

  it.each([
    ['original kind SomeResource without apiVersion', { kind: 'SomeResource' }, true],
    ['kind UnknownResource', { kind: 'UnknownResource' }, false],
    [
      'RoleBinding with the excluded label',
      { kind: 'RoleBinding', metadata: { labels: { labelName: 'labelValue' } } },
      true,
    ],
    [
      'RoleBinding with another label value',
      { kind: 'RoleBinding', metadata: { labels: { labelName: 'nonExcludedValue' } } },
      false,
    ],
    ['Role with an excluded name', { kind: 'Role', metadata: { name: 'role1' } }, true],
    ['Role with another name', { kind: 'Role', metadata: { name: 'role-not-excluded' } }, false],
    ['RoleBinding named like an excluded Role', { kind: 'RoleBinding', metadata: { name: 'role1' } }, false],
  ])('synthetic excludes (Go rules_test): %s → %s', (_name, obj, excluded) => {
    expect(isSkip(rewriteObject(obj, synRestore))).toBe(excluded);
  });
});

describe('lists item by item', () => {
  const pods = {
    apiVersion: 'v1',
    kind: 'PodList',
    metadata: { resourceVersion: '9' },
    items: [
      {
        metadata: { name: 'a', labels: { [INT]: 'virt-launcher' } },
        spec: { nodeSelector: { [`${INT}/schedulable`]: 'true' } },
      },
      { metadata: { name: 'b', labels: { app: 'x' } }, spec: {} },
    ],
  };

  it('gives list items without kind the kind of the list', () => {
    expect(rewriteDocument(deepFreeze(structuredClone(pods)), kvRestore)).toEqual({
      ...pods,
      items: [
        {
          metadata: { name: 'a', labels: { 'kubevirt.io': 'virt-launcher' } },
          spec: { nodeSelector: { 'kubevirt.io/schedulable': 'true' } },
        },
        pods.items[1],
      ],
    });
  });

  it('streaming (envelope + per-item function) gives the same as the whole list', () => {
    const input = deepFreeze(
      structuredClone({
        ...pods,
        kind: 'InternalVirtualizationVirtualMachineList',
        apiVersion: `${IG}/v1`,
        items: [
          vm(`${IG}/v1`, 'InternalVirtualizationVirtualMachine', `${INT}/vm`),
          vm('kubevirt.io/v1', 'VirtualMachine', 'x'),
        ],
      }),
    );
    const whole = rewriteList(input, kvRestore);
    const { items, ...envelope } = input;
    const perItem = listItemRewriter({ kind: input.kind, apiVersion: input.apiVersion }, kvRestore);
    const streamed = {
      ...(rewriteListEnvelope(envelope, kvRestore) as object),
      items: mapArray(items, perItem),
    };
    expect(streamed).toEqual(whole);
    expect((whole as { items: unknown[] }).items).toHaveLength(1);
  });

  it('returns the same list when no item changes', () => {
    const list = deepFreeze({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      items: [{ metadata: { name: 'c' }, data: {} }],
    });
    expect(rewriteDocument(list, kvRestore)).toBe(list);
  });

  it('tells lists from objects', () => {
    expect(isList({ kind: 'PodList', items: [] })).toBe(true);
    expect(isList({ kind: 'PodList' })).toBe(false);
    expect(isList({ kind: 'Pod', items: [] })).toBe(false);
  });

  it('passes non-objects through', () => {
    expect(rewriteDocument('x', kvRestore)).toBe('x');
    expect(rewriteDocument(null, kvRestore)).toBeNull();
  });
});
