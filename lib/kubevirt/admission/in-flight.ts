/**
 * The cap on admission reviews in flight, counted per webhook path, so that a flood at one webhook never takes
 * the places of another on the same server (in the api, the VM's, which a VM start needs; in the operator, the
 * KubeVirt CR delete's beside a flood of updates that wait on the cluster). A review beyond the cap is refused
 * at once with 429 TooManyRequests and `Retry-After: 1`, the answer of kube-apiserver's own max-in-flight
 * filter, which its webhook client retries with backoff. KubeVirt's webhook servers have no such cap. State
 * only, no IO.
 */
import { newStatus, type Status } from '../../kernel/errors/errors.ts';

/** kube-apiserver's default --max-mutating-requests-inflight is 200; one path here gets a bit over half. */
const MAX_REVIEWS_IN_FLIGHT = 128;
export const RETRY_AFTER_SECONDS = 1;

export class ReviewLimit {
  readonly #busy = new Map<string, number>();

  constructor(readonly max: number = MAX_REVIEWS_IN_FLIGHT) {}

  /** A release (idempotent) for one review at `path`, or undefined when `max` are in flight there. */
  enter(path: string): (() => void) | undefined {
    const n = this.#busy.get(path) ?? 0;
    if (n >= this.max) return undefined;
    this.#busy.set(path, n + 1);
    let released = false;
    return (): void => {
      if (released) return;
      released = true;
      const left = (this.#busy.get(path) ?? 1) - 1;
      if (left === 0) this.#busy.delete(path);
      else this.#busy.set(path, left);
    };
  }
}

/** The 429 a review beyond the cap gets. */
export function tooManyReviews(path: string): Status {
  return newStatus(429, `too many admission reviews in flight at ${path}; retry later`, {
    details: { retryAfterSeconds: RETRY_AFTER_SECONDS },
  });
}
