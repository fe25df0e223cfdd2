import { describe, expect, it } from '@jest/globals';
import { rewriteAdmissionReview } from './admission-review.ts';
import { rewriteDocument } from './document.ts';
import { deepFreeze, kvRename, kvRestore, synRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');
const unb64 = (s: unknown): unknown => JSON.parse(Buffer.from(String(s), 'base64').toString('utf8'));

describe('AdmissionReview request (restore)', () => {
  const object = (apiVersion: string, kind: string, labelKey: string): object => ({
    apiVersion,
    kind,
    metadata: {
      name: 'vm1',
      namespace: 'ns',
      labels: { [labelKey]: 'x' },
      finalizers: ['group.io/protection'],
    },
    spec: { field1: 'value1' },
  });
  const review = (
    [group, resource, kind, labelKey]: [string, string, string, string],
    subResource?: string,
  ): object => ({
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid: 'u1',
      kind: { group, version: 'v1', kind },
      resource: { group, version: 'v1', resource },
      requestKind: { group, version: 'v1', kind },
      requestResource: { group, version: 'v1', resource },
      ...(subResource !== undefined && { subResource, requestSubResource: subResource }),
      name: 'vm1',
      namespace: 'ns',
      operation: 'UPDATE',
      userInfo: { username: 'admin' },
      object: object(group === '' ? 'v1' : `${group}/v1`, kind, labelKey),
      oldObject: object(group === '' ? 'v1' : `${group}/v1`, kind, labelKey),
    },
  });

  it.each([undefined, 'status'])(
    'restores kinds, resources, object and oldObject (subResource %s)',
    (sub) => {
      const input = review(
        [IG, 'internalvirtualizationvirtualmachines', 'InternalVirtualizationVirtualMachine', `${INT}/vm`],
        sub,
      );
      expect(rewriteDocument(deepFreeze(input), kvRestore)).toEqual(
        review(['kubevirt.io', 'virtualmachines', 'VirtualMachine', 'kubevirt.io/vm'], sub),
      );
    },
  );

  it('keeps a Scale kind on the scale subresource, restores the resource', () => {
    const input = review(
      [IG, 'internalvirtualizationvirtualmachineinstancereplicasets', 'Scale', 'app'],
      'scale',
    ) as { request: Record<string, unknown> };
    const out = rewriteDocument(
      {
        ...input,
        request: { ...input.request, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
      },
      kvRestore,
    );
    expect(out).toMatchObject({
      request: {
        kind: { group: 'autoscaling', kind: 'Scale' },
        resource: { group: 'kubevirt.io', resource: 'virtualmachineinstancereplicasets' },
      },
    });
  });

  it('restores the metadata of objects of other groups (pods)', () => {
    const out = rewriteDocument(review(['', 'pods', 'Pod', INT]), kvRestore);
    expect(out).toMatchObject({
      request: {
        object: { metadata: { labels: { 'kubevirt.io': 'x' } } },
        resource: { group: '', resource: 'pods' },
      },
    });
  });

  it('synthetic rules: the Go admission_review_test case', () => {
    const out = rewriteDocument(
      review(['prefixed.resources.group.io', 'prefixedsomeresources', 'PrefixedSomeResource', 'anno']),
      synRestore,
    );
    expect(out).toMatchObject({
      request: {
        kind: { group: 'original.group.io', kind: 'SomeResource' },
        requestKind: { group: 'original.group.io', kind: 'SomeResource' },
        resource: { group: 'original.group.io', resource: 'someresources' },
        requestResource: { group: 'original.group.io', resource: 'someresources' },
        object: { apiVersion: 'original.group.io/v1', kind: 'SomeResource' },
        oldObject: { apiVersion: 'original.group.io/v1', kind: 'SomeResource' },
      },
    });
  });

  it('does not touch the response on restore', () => {
    const r = deepFreeze({
      kind: 'AdmissionReview',
      response: { uid: 'u', allowed: true, patchType: 'JSONPatch', patch: b64([]) },
    });
    expect(rewriteDocument(r, kvRestore)).toBe(r);
  });
});

describe('AdmissionReview response (rename)', () => {
  const response = (patch: unknown): object => ({
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    response: { uid: 'u1', allowed: true, patchType: 'JSONPatch', patch: b64(patch) },
  });

  it('renames label, annotation, finalizer and owner reference operations in the patch', () => {
    const patch = [
      { op: 'add', path: '/metadata/labels', value: { 'kubevirt.io/vm': 'vm1', app: 'x' } },
      { op: 'add', path: '/metadata/annotations/kubevirt.io~1latest-observed-api-version', value: 'v1' },
      { op: 'add', path: '/metadata/finalizers/-', value: 'kubevirt.io/virtualMachineControllerFinalize' },
      {
        op: 'replace',
        path: '/metadata/ownerReferences',
        value: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'vm1', uid: 'u' }],
      },
      { op: 'replace', path: '/spec/running', value: true },
    ];
    const out = rewriteAdmissionReview(deepFreeze(response(patch)) as Record<string, unknown>, kvRename) as {
      response: { patch: string };
    };
    expect(unb64(out.response.patch)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { [`${INT}/vm`]: 'vm1', app: 'x' } },
      {
        op: 'add',
        path: `/metadata/annotations/${INT.replaceAll('/', '~1')}~1latest-observed-api-version`,
        value: 'v1',
      },
      { op: 'add', path: '/metadata/finalizers/-', value: `${INT}/virtualMachineControllerFinalize` },
      {
        op: 'replace',
        path: '/metadata/ownerReferences',
        value: [
          { apiVersion: `${IG}/v1`, kind: 'InternalVirtualizationVirtualMachine', name: 'vm1', uid: 'u' },
        ],
      },
      { op: 'replace', path: '/spec/running', value: true },
    ]);
  });

  it("renames the migration mutator's whole /metadata: its selector label and finalizer", () => {
    const metadata = (prefix: string): object => ({
      name: 'mig',
      namespace: 'ns',
      labels: { test: 'test', [`${prefix}/vmi-name`]: 'testvmi' },
      finalizers: [`${prefix}/migrationJobFinalize`],
    });
    const patch = [{ op: 'add', path: '/metadata', value: metadata('kubevirt.io') }];
    const out = rewriteAdmissionReview(deepFreeze(response(patch)) as Record<string, unknown>, kvRename, {
      kind: 'VirtualMachineInstanceMigration',
      apiVersion: 'kubevirt.io/v1',
    }) as { response: { patch: string } };
    expect(unb64(out.response.patch)).toEqual([{ op: 'add', path: '/metadata', value: metadata(INT) }]);
  });

  it('uses the reviewed kind for kind-specific fields', () => {
    const patch = [{ op: 'add', path: '/spec/nodeSelector', value: { 'kubevirt.io/schedulable': 'true' } }];
    const out = rewriteAdmissionReview(response(patch) as Record<string, unknown>, kvRename, {
      kind: 'Pod',
      apiVersion: 'v1',
    }) as { response: { patch: string } };
    expect(unb64(out.response.patch)).toEqual([
      { op: 'add', path: '/spec/nodeSelector', value: { [`${INT}/schedulable`]: 'true' } },
    ]);
  });

  it.each([
    ['no patch', { uid: 'u', allowed: false, status: { message: 'denied' } }],
    ['an empty patch', { uid: 'u', allowed: true, patchType: 'JSONPatch', patch: '' }],
    [
      'a patch that is not base64 JSON',
      { uid: 'u', allowed: true, patchType: 'JSONPatch', patch: '!!not-base64!!' },
    ],
    [
      'a patch with nothing to rename',
      {
        uid: 'u',
        allowed: true,
        patchType: 'JSONPatch',
        patch: b64([{ op: 'add', path: '/spec/x', value: 1 }]),
      },
    ],
  ])('passes %s through', (_name, resp) => {
    const r = deepFreeze({ kind: 'AdmissionReview', response: resp });
    expect(rewriteDocument(r, kvRename)).toBe(r);
  });
});
