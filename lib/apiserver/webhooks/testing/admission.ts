/**
 * Fakes for the admitter tests: a lookup that finds nothing unless told (the KubeVirt CR it returns can be
 * swapped between reviews), and AdmissionReview bodies for handleAdmission.
 */
import type { KubeVirt } from '../../../kubevirt/index.ts';
import type { AdmissionLookup } from '../admitters.ts';
import type { UserInfo } from '../../../kubevirt/admission/review.ts';

export function fakeLookup(over: Partial<AdmissionLookup> = {}): AdmissionLookup {
  return {
    vmi: () => Promise.resolve(undefined),
    migrations: () => Promise.resolve([]),
    installKubeVirts: () => [],
    eviction: {
      pod: () => Promise.resolve(undefined),
      vmi: () => Promise.resolve(undefined),
      markEvacuation: () => Promise.resolve(),
    },
    ...over,
  };
}

/** A lookup whose install namespace holds the KubeVirt CR `cr.current` (none when undefined) at each review. */
export function lookupWithKubeVirt(cr: { current: KubeVirt | undefined }): AdmissionLookup {
  return fakeLookup({ installKubeVirts: () => (cr.current === undefined ? [] : [cr.current]) });
}

export function reviewBody(operation: string, user: UserInfo, object: unknown, oldObject?: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', operation, userInfo: user, object, oldObject: oldObject ?? null },
  });
}
