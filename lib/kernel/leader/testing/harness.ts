/** Candidates on a FakeClock over a FakeLeaseStore, for the election unit tests. */
import type { Registry } from 'prom-client';
import type { FakeClock } from '../../clock.ts';
import { nopLogger, type Logger } from '../../log/log.ts';
import { LeaderElector } from '../election.ts';
import { LEASES } from '../../kube/resources.ts';
import type { Lease } from '../lease.ts';
import type { FakeLeaseStore, LeaseOp } from './fake-leases.ts';

export const NS = 'kubevirt';
export const LOCK = 'virt-controller';

export interface Candidate {
  elector: LeaderElector;
  /** started, work-aborted, stopped, leader:<id>, in order. */
  events: string[];
  /** What the candidate's API calls do now: served, failed with 500, or never answered. */
  fault: { mode: 'none' | 'error' | 'hang'; ops: LeaseOp[] };
  /** Set while the leading work runs; resolve it to let the work return after its signal aborted. */
  finishWork?: () => void;
  stop: () => void;
  done: Promise<void>;
}

export interface CandidateOptions {
  releaseOnCancel?: boolean;
  registry?: Registry;
  /** The leading work returns only when finishWork() is called. */
  slowWork?: boolean;
  /** Called when the candidate starts leading (e.g. to check nobody else leads at that moment). */
  onStart?: () => void;
  log?: Logger;
}

export function startCandidate(
  store: FakeLeaseStore,
  clock: FakeClock,
  id: string,
  opts: CandidateOptions = {},
): Candidate {
  const ac = new AbortController();
  const c: Partial<Candidate> & Pick<Candidate, 'events' | 'fault'> = {
    events: [],
    fault: { mode: 'none', ops: ['get', 'create', 'update'] },
  };
  const client = store.client((op) => {
    if (c.fault.mode === 'none' || !c.fault.ops.includes(op)) return undefined;
    return c.fault.mode === 'hang' ? 'hang' : new Error('injected: connection refused');
  });
  const elector = new LeaderElector({
    client,
    namespace: NS,
    name: LOCK,
    identity: id,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    clock,
    log: opts.log ?? nopLogger,
    random: (): number => 0,
    releaseOnCancel: opts.releaseOnCancel ?? true,
    ...(opts.registry ? { metrics: { registry: opts.registry, component: 'controller' } } : {}),
    onStartedLeading: (signal): Promise<void> | undefined => {
      c.events.push('started');
      opts.onStart?.();
      signal.addEventListener('abort', () => c.events.push('work-aborted'));
      if (!opts.slowWork) return undefined;
      return new Promise<void>((resolve) => {
        c.finishWork = resolve;
      });
    },
    onStoppedLeading: (): void => {
      c.events.push('stopped');
    },
    onNewLeader: (h): void => {
      c.events.push(`leader:${h}`);
    },
  });
  const stop = (): void => {
    ac.abort();
  };
  return Object.assign(c, { elector, stop, done: elector.run(ac.signal) });
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Moves the fake clock forward in small steps, letting promise chains run between steps. */
export async function advance(clock: FakeClock, ms: number, step = 100): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await flush();
    clock.advance(Math.min(step, ms - t));
  }
  await flush();
}

export function storedLease(store: FakeLeaseStore): Lease | undefined {
  return store.peek(LEASES, NS, LOCK);
}
