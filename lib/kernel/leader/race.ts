/** Bounds a pending attempt by a deadline and a signal, without cancelling the attempt itself. */
import type { Clock } from '../clock.ts';

export type Raced<T> = T | 'timeout' | 'aborted';

/**
 * Resolves with the attempt's value, 'timeout' once `ms` have passed on the clock, or 'aborted' when the
 * signal aborts first. A rejection of the attempt is passed through. The attempt keeps running when it
 * loses; the caller must make sure a late result does no harm.
 */
export function raceDeadline<T>(
  attempt: Promise<T>,
  ms: number,
  clock: Clock,
  signal: AbortSignal,
): Promise<Raced<T>> {
  return new Promise<Raced<T>>((resolve, reject) => {
    if (signal.aborted) {
      resolve('aborted');
      return;
    }
    const finish = (): void => {
      timer.cancel();
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      finish();
      resolve('aborted');
    };
    const timer = clock.after(ms, () => {
      finish();
      resolve('timeout');
    });
    signal.addEventListener('abort', onAbort, { once: true });
    attempt.then(
      (v) => {
        finish();
        resolve(v);
      },
      (err: unknown) => {
        finish();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
