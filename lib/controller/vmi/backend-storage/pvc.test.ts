import { describe, expect, it } from '@jest/globals';
import type { KubeObject, OwnerReference } from '../../../kernel/kube/types.ts';
import type { PersistentVolumeClaim } from '../../../kubevirt/core/pvc.ts';
import { newVmi } from '../../../kubevirt/testing/builders.ts';
import {
  backendStorageAccessMode,
  backendStorageClaimFor,
  backendStorageClass,
  newBackendStorageClaim,
  type ClaimPropertySet,
} from './pvc.ts';

const vmi = newVmi(); // default/testvmi

const claim = (
  name: string,
  o: { ns?: string; label?: string; deleting?: boolean } = {},
): PersistentVolumeClaim => ({
  metadata: {
    name,
    namespace: o.ns ?? 'default',
    ...(o.label !== undefined && { labels: { 'persistent-state-for': o.label } }),
    ...(o.deleting === true && { deletionTimestamp: '2025-01-01T00:00:00Z' }),
  },
});

describe('backendStorageClaimFor (kubevirt PVCForVMI)', () => {
  it.each<[string, PersistentVolumeClaim[], string | undefined]>([
    ['none', [], undefined],
    [
      'labelled for the VMI',
      [claim('persistent-state-for-testvmi-x7k2p', { label: 'testvmi' })],
      'persistent-state-for-testvmi-x7k2p',
    ],
    [
      'labelled, before a legacy one',
      [claim('persistent-state-for-testvmi'), claim('p-1', { label: 'testvmi' })],
      'p-1',
    ],
    ['legacy name only', [claim('persistent-state-for-testvmi')], 'persistent-state-for-testvmi'],
    ['labelled for another VMI', [claim('p-2', { label: 'other' })], undefined],
    ['another namespace', [claim('p-3', { ns: 'other', label: 'testvmi' })], undefined],
    ['being deleted', [claim('p-4', { label: 'testvmi', deleting: true })], undefined],
  ])('%s', (_name, claims, want) => {
    expect(backendStorageClaimFor(claims, vmi)?.metadata.name).toBe(want);
  });
});

const sc = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
  metadata: { name, annotations },
});
const KV_DEFAULT = { 'storageclass.kubevirt.io/is-default-virt-class': 'true' };
const K8S_DEFAULT = { 'storageclass.kubernetes.io/is-default-class': 'true' };

describe('backendStorageClass (kubevirt getStorageClass)', () => {
  it.each<[string, string | undefined, KubeObject[], string]>([
    ['vmStateStorageClass wins', 'fast', [sc('a', KV_DEFAULT), sc('b', K8S_DEFAULT)], 'fast'],
    [
      "KubeVirt's default class before the cluster's",
      undefined,
      [sc('b', K8S_DEFAULT), sc('a', KV_DEFAULT)],
      'a',
    ],
    ["the cluster's default class", '', [sc('plain'), sc('b', K8S_DEFAULT)], 'b'],
    ['the last default listed', undefined, [sc('b1', K8S_DEFAULT), sc('b2', K8S_DEFAULT)], 'b2'],
  ])('%s', (_name, configured, classes, want) => {
    expect(backendStorageClass(configured, classes)).toBe(want);
  });

  it('fails without any default class', () => {
    expect(() => backendStorageClass(undefined, [sc('plain', { x: 'true' })])).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG', message: 'no default storage class found' }),
    );
  });
});

describe('backendStorageAccessMode (kubevirt getAccessMode)', () => {
  const fs = (...accessModes: string[]): ClaimPropertySet => ({ volumeMode: 'Filesystem', accessModes });
  it.each<[string, boolean, ClaimPropertySet[] | undefined, string]>([
    ['configured class, no profile', true, undefined, 'ReadWriteMany'],
    ['default class, no profile', false, undefined, 'ReadWriteOnce'],
    ['profile offers RWX', false, [fs('ReadWriteOnce'), fs('ReadWriteMany')], 'ReadWriteMany'],
    ['profile offers RWO only', true, [fs('ReadWriteOnce')], 'ReadWriteOnce'],
    [
      'RWX only for block claims',
      true,
      [{ volumeMode: 'Block', accessModes: ['ReadWriteMany'] }, fs('ReadWriteOnce')],
      'ReadWriteOnce',
    ],
    ['profile without property sets', true, [], 'ReadWriteMany'],
  ])('%s', (_name, classConfigured, profile, want) => {
    expect(backendStorageAccessMode({ classConfigured, ...(profile && { profile }) })).toBe(want);
  });
});

describe('newBackendStorageClaim (kubevirt createPVC)', () => {
  const vmiRef: OwnerReference = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    name: 'testvmi',
    uid: 'u-vmi',
    controller: true,
    blockOwnerDeletion: true,
  };
  const vmRef: OwnerReference = { ...vmiRef, kind: 'VirtualMachine', uid: 'u-vm' };

  it('asks for 10Mi of filesystem, labelled for the VMI and for CDI, owned by the VM', () => {
    const owned = { ...vmi, metadata: { ...vmi.metadata, ownerReferences: [vmRef] } };
    expect(
      newBackendStorageClaim(owned, { storageClass: 'fast', accessMode: 'ReadWriteMany', vmiRef }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'persistent-state-for-testvmi',
        namespace: 'default',
        ownerReferences: [vmRef],
        labels: { 'persistent-state-for': 'testvmi', 'cdi.kubevirt.io/applyStorageProfile': 'true' },
      },
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: '10Mi' } },
        storageClassName: 'fast',
        volumeMode: 'Filesystem',
      },
    });
  });

  it('is owned by the VMI when nothing owns the VMI', () => {
    const pvc = newBackendStorageClaim(vmi, { storageClass: 'fast', accessMode: 'ReadWriteOnce', vmiRef });
    expect(pvc.metadata.ownerReferences).toEqual([vmiRef]);
  });
});
