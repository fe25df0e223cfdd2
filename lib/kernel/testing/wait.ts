/**
 * The one way tests wait for something that happens on its own time (a watch event, a process, a status
 * written by a controller): poll, with a deadline and a message that says what never happened. Tests with a
 * fake clock advance it instead (lib/kernel/informer/testing/fake-client.ts `until` counts event-loop turns).
 */
import { errorMessage } from '../errors/errors.ts';

export interface WaitOptions {
  /** Default 30 s. */
  readonly timeoutMs?: number;
  /** Default 50 ms. */
  readonly intervalMs?: number;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls fn until it returns something other than undefined or false, and returns that. A throw counts as
 * "not yet"; after timeoutMs it fails with `what` (a string, or a function read at that moment) and the last
 * error.
 */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  what: string | (() => string),
  opts: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const desc = typeof what === 'string' ? what : what();
      throw new Error(`timed out waiting for ${desc}${last === undefined ? '' : `: ${errorMessage(last)}`}`);
    }
    await sleep(opts.intervalMs ?? 50);
  }
}

/** Runs check until it stops throwing (assertions inside it); after timeoutMs its last error is thrown. */
export async function eventually(check: () => unknown, opts: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await sleep(opts.intervalMs ?? 50);
  }
}

/** Retries fn until it resolves (the API server may be down for a while); after timeoutMs its error is thrown. */
export async function retrying<T>(fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  let out: T | undefined;
  await eventually(
    async () => {
      out = await fn();
    },
    { timeoutMs, intervalMs: 200 },
  );
  return out as T;
}
