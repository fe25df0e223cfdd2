import { describe, expect, it } from '@jest/globals';
import { rewriteKeyMap, rewriteMetadata } from './metadata.ts';
import {
  deepFreeze,
  KUBEVIRT,
  kvRename,
  kvRestore,
  synRename,
  synRestore,
} from './testing/synthetic-rules.ts';

const INT = 'kubevirt.internal.virtualization.deckhouse.io';
const IG = 'internal.virtualization.deckhouse.io';

describe('rewriteMetadata', () => {
  const original = {
    name: 'vm1',
    labels: { 'kubevirt.io/vm': 'vm1', app: 'web', 'app.kubernetes.io/managed-by': 'virt-operator' },
    annotations: { 'kubevirt.io/latest-observed-api-version': 'v1', note: 'x' },
    finalizers: ['kubevirt.io/virtualMachineControllerFinalize', 'foregroundDeleteVirtualMachine'],
    ownerReferences: [
      { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'vm1', uid: 'u1', controller: true },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u2' },
      { apiVersion: 'other.io/v1', kind: 'VirtualMachine', name: 'x', uid: 'u3' },
    ],
  };
  const renamed = {
    name: 'vm1',
    labels: {
      [`${INT}/vm`]: 'vm1',
      app: 'web',
      'app.kubernetes.io/managed-by': 'virt-operator-internal-virtualization',
    },
    annotations: { [`${INT}/latest-observed-api-version`]: 'v1', note: 'x' },
    finalizers: [`${INT}/virtualMachineControllerFinalize`, 'foregroundDeleteVirtualMachine'],
    ownerReferences: [
      {
        apiVersion: `${IG}/v1`,
        kind: 'InternalVirtualizationVirtualMachine',
        name: 'vm1',
        uid: 'u1',
        controller: true,
      },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u2' },
      { apiVersion: 'other.io/v1', kind: 'VirtualMachine', name: 'x', uid: 'u3' },
    ],
  };

  it('renames labels, annotations, finalizers and owner references', () => {
    expect(rewriteMetadata(deepFreeze(structuredClone(original)), kvRename)).toEqual(renamed);
  });

  it('restores them', () => {
    expect(rewriteMetadata(deepFreeze(structuredClone(renamed)), kvRestore)).toEqual(original);
  });

  it('returns the same object when nothing changes, and shares untouched parts', () => {
    const plain = deepFreeze({
      name: 'p',
      labels: { app: 'x' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod' }],
    });
    expect(rewriteMetadata(plain, kvRename)).toBe(plain);
    const meta = deepFreeze({ labels: { 'kubevirt.io': 'x' }, annotations: { a: 'b' } });
    const out = rewriteMetadata(meta, kvRename);
    expect(out).not.toBe(meta);
    expect(out['annotations']).toBe(meta.annotations);
  });

  it('rewrites strategic-merge-patch finalizer directives', () => {
    const patch = {
      '$setElementOrder/finalizers': ['kubevirt.io/a'],
      '$deleteFromPrimitiveList/finalizers': ['kubevirt.io/b'],
    };
    expect(rewriteMetadata(patch, kvRename)).toEqual({
      '$setElementOrder/finalizers': [`${INT}/a`],
      '$deleteFromPrimitiveList/finalizers': [`${INT}/b`],
    });
  });

  it('synthetic rules: ControllerRevision metadata as in the Go test', () => {
    const meta = {
      labels: { 'component.replacedlabelgroup.io/labelName': 'labelValue' },
      annotations: { 'replacedanno.io': 'annoValue' },
      ownerReferences: [
        { apiVersion: 'prefixed.resources.group.io/v1', kind: 'PrefixedSomeResource', name: 'owner' },
        { apiVersion: 'other.product.group.io/v1alpha1', kind: 'SomeResource', name: 'another' },
      ],
    };
    const restored = rewriteMetadata(meta, synRestore);
    expect(restored).toEqual({
      labels: { 'component.labelgroup.io/labelName': 'labelValue' },
      annotations: { 'annogroup.io': 'annoValue' },
      ownerReferences: [
        { apiVersion: 'original.group.io/v1', kind: 'SomeResource', name: 'owner' },
        { apiVersion: 'other.product.group.io/v1alpha1', kind: 'SomeResource', name: 'another' },
      ],
    });
    expect(rewriteMetadata(restored, synRename)).toEqual(meta);
  });
});

describe('rewriteKeyMap', () => {
  it.each([
    [
      'an original key already on the server is preserved on restore',
      'restore' as const,
      { 'kubevirt.io/vm': 'real', [`${INT}/vm`]: 'ours' },
      { 'preserved-original-kubevirt.io/vm': 'real', 'kubevirt.io/vm': 'ours' },
    ],
    [
      'a preserved key comes back on rename',
      'rename' as const,
      { 'preserved-original-kubevirt.io/vm': 'real', 'kubevirt.io/vm': 'ours' },
      { 'kubevirt.io/vm': 'real', [`${INT}/vm`]: 'ours' },
    ],
    [
      'a rewritten key wins over an already renamed key sent by the client',
      'rename' as const,
      { [`${INT}/vm`]: 'stale', 'kubevirt.io/vm': 'fresh' },
      { [`${INT}/vm`]: 'fresh' },
    ],
    [
      'null values (merge patch deletes) keep their value',
      'rename' as const,
      { 'kubevirt.io/vm': null },
      { [`${INT}/vm`]: null },
    ],
  ])('%s', (_name, dir, input, expected) => {
    expect(rewriteKeyMap(deepFreeze(input), KUBEVIRT.labels, dir)).toEqual(expected);
  });

  it('keeps a __proto__ key as an own property', () => {
    const input = JSON.parse('{"__proto__": "x", "kubevirt.io/a": "b"}') as Record<string, unknown>;
    const out = rewriteKeyMap(input, KUBEVIRT.labels, 'rename');
    expect(Object.getOwnPropertyNames(out)).toEqual(['__proto__', `${INT}/a`]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
