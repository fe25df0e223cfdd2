import { describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import { FakeClock } from '../clock.ts';
import { KvError } from '../errors/errors.ts';
import type { KubeClient, RawRequest } from '../kube/types.ts';
import {
  bearerToken,
  metricsAccessReview,
  ReviewingAuthorizer,
  tokenReview,
  type MetricsAccessReview,
  type ReviewedUser,
  type TokenReview,
} from './authorize.ts';

const prometheus: ReviewedUser = {
  username: 'system:serviceaccount:d8-monitoring:prometheus',
  uid: 'uid-1',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { 'authentication.kubernetes.io/pod-name': ['prometheus-0'] },
};

interface Cluster {
  /** The user each token names; others are not authenticated. */
  users: Record<string, ReviewedUser>;
  /** Users allowed to get the path. */
  allowed: Set<string>;
  /** Thrown by every call when set. */
  failure?: Error;
}

/** A client that answers the two reviews from `cluster` and records every call. */
function fakeClient(cluster: Cluster): { client: Pick<KubeClient, 'request'>; calls: RawRequest[] } {
  const calls: RawRequest[] = [];
  const answer = (req: RawRequest): unknown => {
    if (cluster.failure !== undefined) throw cluster.failure;
    if (req.path === '/apis/authentication.k8s.io/v1/tokenreviews') {
      const tr = req.body as TokenReview;
      const user = cluster.users[tr.spec.token];
      return {
        ...tr,
        status:
          user === undefined ? { authenticated: false, error: 'invalid' } : { authenticated: true, user },
      };
    }
    if (req.path === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
      const sar = req.body as MetricsAccessReview;
      const allowed = cluster.allowed.has(sar.spec.user);
      return { ...sar, status: allowed ? { allowed } : { allowed, reason: 'no RBAC policy matched' } };
    }
    throw new Error(`unexpected ${req.method} ${req.path}`);
  };
  const client = {
    request: <T>(req: RawRequest): Promise<T> => {
      calls.push(req);
      try {
        return Promise.resolve(answer(req) as T);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
  return { client, calls };
}

const cluster = (over: Partial<Cluster> = {}): Cluster => ({
  users: { 'good-token': prometheus, 'other-token': { username: 'alice' } },
  allowed: new Set([prometheus.username]),
  ...over,
});

describe('the review bodies', () => {
  it('a TokenReview carries the token and no audiences', () => {
    expect(tokenReview('t0k')).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't0k' },
    });
  });

  it('a SubjectAccessReview carries user, uid, groups and extra, and get on the path', () => {
    expect(metricsAccessReview(prometheus, '/metrics').spec).toEqual({
      user: 'system:serviceaccount:d8-monitoring:prometheus',
      uid: 'uid-1',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['prometheus-0'] },
      nonResourceAttributes: { path: '/metrics', verb: 'get' },
    });
    expect(metricsAccessReview({ username: 'bob', uid: '', groups: [], extra: {} }, '/metrics').spec).toEqual(
      {
        user: 'bob',
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      },
    );
  });
});

describe('bearerToken', () => {
  it.each<[string | undefined, string | undefined]>([
    ['Bearer abc.def', 'abc.def'],
    ['bearer abc', 'abc'],
    ['  BEARER   abc  ', 'abc'],
    [undefined, undefined],
    ['', undefined],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Basic dXNlcjpwdw==', undefined],
    ['Bearer a b', undefined],
  ])('%j → %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('ReviewingAuthorizer', () => {
  it('allows a token whose user may get /metrics, after a TokenReview and a SubjectAccessReview', async () => {
    const { client, calls } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    expect(await a.authorize('good-token')).toEqual({ kind: 'allowed', user: prometheus.username });
    expect(calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ['POST', '/apis/authentication.k8s.io/v1/tokenreviews', tokenReview('good-token')],
      [
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        metricsAccessReview(prometheus, '/metrics'),
      ],
    ]);
    expect(calls.every((c) => c.signal instanceof AbortSignal)).toBe(true);
  });

  it('denies a user RBAC does not allow, with the reason', async () => {
    const { client } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    expect(await a.authorize('other-token')).toEqual({
      kind: 'denied',
      user: 'alice',
      reason: 'no RBAC policy matched',
    });
  });

  it('answers unauthenticated for a token the cluster does not know, without a SubjectAccessReview', async () => {
    const { client, calls } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    expect(await a.authorize('forged')).toEqual({ kind: 'unauthenticated' });
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['allowed', 'good-token', 60_000],
    ['denied', 'other-token', 10_000],
    ['unauthenticated', 'forged', 10_000],
  ])('keeps the %s answer (token %s) for %d ms, then asks again', async (_kind, token, ttl) => {
    const clock = new FakeClock();
    const { client, calls } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock });
    const first = await a.authorize(token);
    const asked = calls.length;
    clock.advance(ttl - 1);
    expect(await a.authorize(token)).toEqual(first);
    expect(calls).toHaveLength(asked);
    clock.advance(1);
    await a.authorize(token);
    expect(calls).toHaveLength(2 * asked);
  });

  it('sees a changed answer once the cached one expires', async () => {
    const clock = new FakeClock();
    const c = cluster();
    const { client } = fakeClient(c);
    const a = new ReviewingAuthorizer({ client, clock });
    expect((await a.authorize('good-token')).kind).toBe('allowed');
    c.allowed.clear();
    expect((await a.authorize('good-token')).kind).toBe('allowed');
    clock.advance(60_000);
    expect((await a.authorize('good-token')).kind).toBe('denied');
  });

  it('keeps at most maxEntries answers: the oldest token is asked about again', async () => {
    const users = Object.fromEntries(['t1', 't2', 't3'].map((t) => [t, { username: t }]));
    const { client, calls } = fakeClient(cluster({ users }));
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock(), cache: { maxEntries: 2 } });
    for (const t of ['t1', 't2', 't3']) await a.authorize(t);
    calls.length = 0;
    await a.authorize('t3');
    await a.authorize('t2');
    expect(calls).toHaveLength(0);
    await a.authorize('t1');
    expect(calls).toHaveLength(2);
  });

  it('shares one review among concurrent calls with the same token', async () => {
    const { client, calls } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    const answers = await Promise.all([a.authorize('good-token'), a.authorize('good-token')]);
    expect(answers[0]).toEqual(answers[1]);
    expect(calls).toHaveLength(2);
  });

  it('throws when a review cannot be made, and caches nothing', async () => {
    const c = cluster({ failure: new KvError('KV_ERR_TRANSPORT', 'connection refused') });
    const { client, calls } = fakeClient(c);
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    await expect(a.authorize('good-token')).rejects.toThrow('connection refused');
    delete c.failure;
    expect((await a.authorize('good-token')).kind).toBe('allowed');
    expect(calls).toHaveLength(3);
  });

  it('never keeps the token itself', async () => {
    const { client } = fakeClient(cluster());
    const a = new ReviewingAuthorizer({ client, clock: new FakeClock() });
    await a.authorize('good-token');
    // inspect shows the Maps' keys and values too.
    const held = inspect(a, { depth: 10, showHidden: true });
    expect(held).toContain(prometheus.username);
    expect(held).not.toContain('good-token');
  });
});
