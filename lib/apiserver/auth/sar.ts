/**
 * Authorization by SubjectAccessReview, as KubeVirt's virt-api asks the cluster for every subresource call:
 * the forwarded identity and the request's resource attributes go to authorization.k8s.io/v1, and the
 * answer's `allowed` and `reason` decide. The review body and the attributes of a request path are pure;
 * SarAuthorizer posts the review through the kube client, with a short cache of answers.
 */
import { realClock, type Clock } from '../../kernel/clock.ts';
import type { GroupVersionResource, KubeClient } from '../../kernel/kube/index.ts';
import { DecisionCache, type Decision, type DecisionCacheOptions } from './decision-cache.ts';
import type { Identity } from './identity.ts';

/** authorization.k8s.io/v1 subjectaccessreviews: cluster-scoped, create only. */
const SUBJECT_ACCESS_REVIEWS: GroupVersionResource = Object.freeze({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
});

export interface ResourceAttributes {
  readonly namespace: string;
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly name?: string;
}

interface SubjectAccessReviewSpec {
  user: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
  resourceAttributes: ResourceAttributes;
}

export interface SubjectAccessReview {
  apiVersion: 'authorization.k8s.io/v1';
  kind: 'SubjectAccessReview';
  metadata: Record<string, never>;
  spec: SubjectAccessReviewSpec;
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

export type { Decision };

/** The review for this identity and these attributes; empty fields are left out, extra keys sorted. */
export function subjectAccessReview(identity: Identity, attrs: ResourceAttributes): SubjectAccessReview {
  const extraKeys = Object.keys(identity.extra).sort();
  const resourceAttributes: ResourceAttributes = {
    namespace: attrs.namespace,
    verb: attrs.verb,
    group: attrs.group,
    version: attrs.version,
    resource: attrs.resource,
    ...(attrs.subresource ? { subresource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
  };
  const spec: SubjectAccessReviewSpec = {
    user: identity.user,
    ...(identity.groups.length > 0 ? { groups: [...identity.groups] } : {}),
    ...(extraKeys.length > 0
      ? { extra: Object.fromEntries(extraKeys.map((k) => [k, [...(identity.extra[k] ?? [])]])) }
      : {}),
    ...(identity.uid ? { uid: identity.uid } : {}),
    resourceAttributes,
  };
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec };
}

export interface Authorizer {
  /** Throws when the review cannot be made (the server answers 500); never caches that. */
  authorize(identity: Identity, attrs: ResourceAttributes): Promise<Decision>;
}

export interface SarAuthorizerOptions {
  readonly client: Pick<KubeClient, 'create'>;
  readonly clock?: Clock;
  /** false turns the cache off. */
  readonly cache?: Partial<DecisionCacheOptions> | false;
}

export class SarAuthorizer implements Authorizer {
  private readonly client: Pick<KubeClient, 'create'>;
  private readonly cache: DecisionCache | undefined;
  /** Identical reviews in flight share one call. */
  private readonly inFlight = new Map<string, Promise<Decision>>();

  constructor(opts: SarAuthorizerOptions) {
    this.client = opts.client;
    this.cache = opts.cache === false ? undefined : new DecisionCache(opts.clock ?? realClock, opts.cache);
  }

  authorize(identity: Identity, attrs: ResourceAttributes): Promise<Decision> {
    const review = subjectAccessReview(identity, attrs);
    const key = JSON.stringify(review.spec);
    const cached = this.cache?.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const call = this.review(review, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    return call;
  }

  private async review(review: SubjectAccessReview, key: string): Promise<Decision> {
    const answer = await this.client.create(SUBJECT_ACCESS_REVIEWS, review);
    const decision: Decision =
      answer.status?.allowed === true
        ? { allowed: true }
        : { allowed: false, reason: answer.status?.reason ?? '' };
    this.cache?.set(key, decision);
    return decision;
  }
}
