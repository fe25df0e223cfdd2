/**
 * Who may read /metrics, decided as controller-runtime's metrics filter (pkg/metrics/filters
 * WithAuthenticationAndAuthorization) and kube-rbac-proxy decide: the caller's bearer token goes to the cluster
 * in an authentication.k8s.io/v1 TokenReview, and the user it names must be allowed `get` on the path by an
 * authorization.k8s.io/v1 SubjectAccessReview. Answers are cached under a hash of the token, never the token:
 * allowed ones for a minute, refusals for ten seconds, at most 1024 of them; the same token's reviews in
 * flight share one call. A review that cannot be made throws and is never cached.
 */
import { createHash } from 'node:crypto';
import { realClock, type Clock } from '../clock.ts';
import type { KubeClient } from '../kube/types.ts';
import { TtlCache } from '../ttl-cache.ts';

/** The user a TokenReview names, as authentication.k8s.io/v1 UserInfo. */
export interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface TokenReview {
  apiVersion: 'authentication.k8s.io/v1';
  kind: 'TokenReview';
  spec: { token: string };
  status?: { authenticated?: boolean; user?: ReviewedUser; error?: string };
}

export interface MetricsAccessReview {
  apiVersion: 'authorization.k8s.io/v1';
  kind: 'SubjectAccessReview';
  spec: {
    user: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes: { path: string; verb: 'get' };
  };
  status?: { allowed?: boolean; reason?: string };
}

/** What the cluster said about a token: the server answers 200, 401 or 403 from it. */
export type MetricsAccess =
  | { readonly kind: 'allowed'; readonly user: string }
  | { readonly kind: 'unauthenticated' }
  | { readonly kind: 'denied'; readonly user: string; readonly reason: string };

export interface MetricsAuthorizer {
  /** Throws when a review cannot be made (the server answers 500). */
  authorize(token: string): Promise<MetricsAccess>;
}

export interface MetricsCacheOptions {
  readonly allowedTtlMs: number;
  readonly deniedTtlMs: number;
  readonly maxEntries: number;
}

const DEFAULT_CACHE: MetricsCacheOptions = { allowedTtlMs: 60_000, deniedTtlMs: 10_000, maxEntries: 1024 };
/** controller-runtime's TokenAccessReviewTimeout. */
const REVIEW_TIMEOUT_MS = 10_000;
/** The non-resource path the SubjectAccessReview asks `get` on. */
export const METRICS_PATH = '/metrics';
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

export function tokenReview(token: string): TokenReview {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } };
}

/** The review of `get` on path for this user; empty fields are left out, as Go omits them. */
export function metricsAccessReview(user: ReviewedUser, path: string): MetricsAccessReview {
  const groups = user.groups ?? [];
  const extra = Object.entries(user.extra ?? {});
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: user.username,
      ...(user.uid !== undefined && user.uid !== '' && { uid: user.uid }),
      ...(groups.length > 0 && { groups: [...groups] }),
      ...(extra.length > 0 && { extra: Object.fromEntries(extra.map(([k, v]) => [k, [...v]])) }),
      nonResourceAttributes: { path, verb: 'get' },
    },
  };
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^bearer +(\S+)$/i.exec(header?.trim() ?? '');
  return m?.[1];
}

export interface ReviewingAuthorizerOptions {
  /** Posts the reviews with the role's own identity. */
  readonly client: Pick<KubeClient, 'request'>;
  readonly clock?: Clock;
  readonly cache?: Partial<MetricsCacheOptions>;
}

export class ReviewingAuthorizer implements MetricsAuthorizer {
  private readonly cache: TtlCache<MetricsAccess>;
  private readonly ttl: MetricsCacheOptions;
  private readonly inFlight = new Map<string, Promise<MetricsAccess>>();

  constructor(private readonly o: ReviewingAuthorizerOptions) {
    this.ttl = { ...DEFAULT_CACHE, ...o.cache };
    this.cache = new TtlCache(o.clock ?? realClock, this.ttl.maxEntries);
  }

  authorize(token: string): Promise<MetricsAccess> {
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.cache.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const call = this.review(token).then((access) => {
      this.cache.set(key, access, access.kind === 'allowed' ? this.ttl.allowedTtlMs : this.ttl.deniedTtlMs);
      return access;
    });
    const shared = call.finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, shared);
    return shared;
  }

  private async review(token: string): Promise<MetricsAccess> {
    const tr = await this.post<TokenReview>(TOKEN_REVIEWS, tokenReview(token));
    const user = tr.status?.user;
    if (tr.status?.authenticated !== true || user === undefined || user.username === '')
      return { kind: 'unauthenticated' };
    const sar = await this.post<MetricsAccessReview>(
      SUBJECT_ACCESS_REVIEWS,
      metricsAccessReview(user, METRICS_PATH),
    );
    return sar.status?.allowed === true
      ? { kind: 'allowed', user: user.username }
      : { kind: 'denied', user: user.username, reason: sar.status?.reason ?? '' };
  }

  private post<T>(path: string, body: unknown): Promise<T> {
    const signal = AbortSignal.timeout(REVIEW_TIMEOUT_MS);
    return this.o.client.request<T>({ method: 'POST', path, body, signal });
  }
}
