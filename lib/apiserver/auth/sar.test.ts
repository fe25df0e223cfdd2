import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { GroupVersionResource, KubeClient, KubeObject } from '../../kernel/kube/index.ts';
import type { Identity } from './identity.ts';
import {
  SarAuthorizer,
  subjectAccessReview,
  type ResourceAttributes,
  type SubjectAccessReview,
} from './sar.ts';

const alice: Identity = {
  user: 'alice',
  groups: ['dev', 'system:authenticated'],
  extra: { 'scopes.example.org': ['view'], 'authentication.kubernetes.io/credential-id': ['JTI=1'] },
  uid: 'uid-1',
};
const console1: ResourceAttributes = {
  namespace: 'ns1',
  verb: 'get',
  group: 'subresources.kubevirt.io',
  version: 'v1',
  resource: 'virtualmachineinstances',
  subresource: 'console',
  name: 'vm1',
};

describe('subjectAccessReview', () => {
  it('carries user, groups, extra (keys sorted), uid and the resource attributes', () => {
    expect(subjectAccessReview(alice, console1)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: 'alice',
        groups: ['dev', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'], 'scopes.example.org': ['view'] },
        uid: 'uid-1',
        resourceAttributes: console1,
      },
    });
    expect(Object.keys(subjectAccessReview(alice, console1).spec.extra ?? {})).toEqual([
      'authentication.kubernetes.io/credential-id',
      'scopes.example.org',
    ]);
  });

  it('leaves out what is empty, as Go omits it', () => {
    const bare: Identity = { user: 'bob', groups: [], extra: {} };
    const attrs: ResourceAttributes = { ...console1, subresource: '', name: '' };
    expect(subjectAccessReview(bare, attrs).spec).toEqual({
      user: 'bob',
      resourceAttributes: {
        namespace: 'ns1',
        verb: 'get',
        group: 'subresources.kubevirt.io',
        version: 'v1',
        resource: 'virtualmachineinstances',
      },
    });
  });
});

const isReview = (o: KubeObject): o is KubeObject & SubjectAccessReview => o.kind === 'SubjectAccessReview';

/** A client whose create() answers SubjectAccessReviews from a function and counts the calls. */
function fakeClient(answer: (r: SubjectAccessReview) => SubjectAccessReview['status'] | Error): {
  client: Pick<KubeClient, 'create'>;
  calls: { gvr: GroupVersionResource; body: unknown }[];
} {
  const calls: { gvr: GroupVersionResource; body: unknown }[] = [];
  const client: Pick<KubeClient, 'create'> = {
    create: <T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> => {
      calls.push({ gvr, body: obj });
      if (!isReview(obj))
        return Promise.reject(new Error(`not a SubjectAccessReview: ${JSON.stringify(obj)}`));
      const status = answer(obj);
      if (status instanceof Error) return Promise.reject(status);
      return Promise.resolve({ ...obj, status });
    },
  };
  return { client, calls };
}

describe('SarAuthorizer', () => {
  it('posts the review to subjectaccessreviews and returns allowed', async () => {
    const { client, calls } = fakeClient(() => ({ allowed: true }));
    const a = new SarAuthorizer({ client, cache: false });
    expect(await a.authorize(alice, console1)).toEqual({ allowed: true });
    expect(calls).toEqual([
      {
        gvr: expect.objectContaining({
          group: 'authorization.k8s.io',
          resource: 'subjectaccessreviews',
          namespaced: false,
        }),
        body: subjectAccessReview(alice, console1),
      },
    ]);
  });

  it.each([
    [
      'with the reason RBAC gave',
      { allowed: false, reason: 'no RBAC policy matched' },
      'no RBAC policy matched',
    ],
    ['with an empty reason when none was given', { allowed: false }, ''],
    ['when the answer has no status', undefined, ''],
  ])('denies %s', async (_what, status, reason) => {
    const { client } = fakeClient(() => status);
    const a = new SarAuthorizer({ client, cache: false });
    expect(await a.authorize(alice, console1)).toEqual({ allowed: false, reason });
  });

  it('throws when the review fails, and asks again next time', async () => {
    let fail = true;
    const { client, calls } = fakeClient(() =>
      fail ? new KvError('KV_ERR_TRANSPORT', 'connection refused') : { allowed: true },
    );
    const a = new SarAuthorizer({ client, clock: new FakeClock() });
    await expect(a.authorize(alice, console1)).rejects.toThrow('connection refused');
    fail = false;
    expect(await a.authorize(alice, console1)).toEqual({ allowed: true });
    expect(calls).toHaveLength(2);
  });

  it('answers from the cache for 10 s, then asks again', async () => {
    const clock = new FakeClock();
    let allowed = true;
    const { client, calls } = fakeClient(() => ({ allowed }));
    const a = new SarAuthorizer({ client, clock });
    await a.authorize(alice, console1);
    allowed = false;
    clock.advance(9_999);
    expect(await a.authorize(alice, console1)).toEqual({ allowed: true });
    expect(calls).toHaveLength(1);
    clock.advance(1);
    expect(await a.authorize(alice, console1)).toEqual({ allowed: false, reason: '' });
    expect(calls).toHaveLength(2);
  });

  it('keys the cache by the whole review: another group, extra value or subresource asks again', async () => {
    const { client, calls } = fakeClient(() => ({ allowed: true }));
    const a = new SarAuthorizer({ client, clock: new FakeClock() });
    await a.authorize(alice, console1);
    await a.authorize({ ...alice, groups: ['dev'] }, console1);
    await a.authorize({ ...alice, extra: { 'scopes.example.org': ['edit'] } }, console1);
    await a.authorize(alice, { ...console1, subresource: 'vnc' });
    await a.authorize({ ...alice, extra: { ...alice.extra } }, { ...console1 });
    expect(calls).toHaveLength(4);
  });

  it('shares one call between identical reviews in flight', async () => {
    const { client, calls } = fakeClient(() => ({ allowed: true }));
    const a = new SarAuthorizer({ client, cache: false });
    const answers = await Promise.all([a.authorize(alice, console1), a.authorize(alice, console1)]);
    expect(answers).toEqual([{ allowed: true }, { allowed: true }]);
    expect(calls).toHaveLength(1);
  });
});
