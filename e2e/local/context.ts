/**
 * What every step of `up` and `down` works on: the layout, the mutable state (saved after each change),
 * the binaries, a logger and the per-part timings `up` reports.
 */
import type { Logger } from '../../lib/kernel/log/log.ts';
import type { Binaries } from './builds.ts';
import type { Layout } from './layout.ts';
import { writeLocalState, type LocalState } from './state.ts';

export interface StepContext {
  L: Layout;
  s: LocalState;
  bins: Binaries;
  log: Logger;
  timings: Record<string, number>;
  readyTimeoutMs: number;
}

const queues = new WeakMap<StepContext, Promise<void>>();

/** Saves state.json; saves of one context run one after another (steps may run side by side). */
export function save(c: StepContext): Promise<void> {
  const next = (queues.get(c) ?? Promise.resolve()).then(() => writeLocalState(c.L.state, c.s));
  queues.set(
    c,
    next.catch(() => undefined),
  );
  return next;
}
