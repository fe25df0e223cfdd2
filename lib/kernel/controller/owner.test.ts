import { describe, it, expect } from '@jest/globals';
import type { KubeObject, OwnerReference } from '../kube/types.ts';
import { controllerRefOf, isControlledBy, newControllerRef } from './owner.ts';

const rs: KubeObject = { metadata: { name: 'rs', namespace: 'ns', uid: 'uid-rs' } };
const ref = (uid: string, controller?: boolean): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'X',
  name: 'x',
  uid,
  ...(controller === undefined ? {} : { controller }),
});
const owned = (...refs: OwnerReference[]): KubeObject => ({
  metadata: { name: 'vmi', ownerReferences: refs },
});

describe('newControllerRef', () => {
  it.each([
    {
      gvk: { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachineInstanceReplicaSet' },
      apiVersion: 'kubevirt.io/v1',
    },
    { gvk: { group: '', version: 'v1', kind: 'Pod' }, apiVersion: 'v1' },
  ])('apiVersion $apiVersion', ({ gvk, apiVersion }) => {
    expect(newControllerRef(rs, gvk)).toEqual({
      apiVersion,
      kind: gvk.kind,
      name: 'rs',
      uid: 'uid-rs',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('refuses an owner without uid', () => {
    expect(() =>
      newControllerRef({ metadata: { name: 'rs' } }, { group: '', version: 'v1', kind: 'Pod' }),
    ).toThrow(expect.objectContaining({ code: 'KV_ERR_INTERNAL' }));
  });
});

describe('controllerRefOf / isControlledBy', () => {
  it.each([
    { case: 'no owner references', obj: { metadata: {} }, ref: undefined, controlled: false },
    {
      case: 'owner but not controller',
      obj: owned(ref('uid-rs', false), ref('uid-rs')),
      ref: undefined,
      controlled: false,
    },
    {
      case: 'controller is the owner',
      obj: owned(ref('other'), ref('uid-rs', true)),
      ref: ref('uid-rs', true),
      controlled: true,
    },
    {
      case: 'controller is someone else',
      obj: owned(ref('other', true)),
      ref: ref('other', true),
      controlled: false,
    },
  ])('$case', ({ obj, ref: want, controlled }) => {
    expect(controllerRefOf(obj)).toEqual(want);
    expect(isControlledBy(obj, rs)).toBe(controlled);
  });

  it('an owner without uid controls nothing', () => {
    expect(isControlledBy(owned({ ...ref('', true) }), { metadata: { name: 'rs' } })).toBe(false);
  });
});
