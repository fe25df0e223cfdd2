/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's timing rules (leaseDuration >
 * renewDeadline > 1.2 × retryPeriod): candidates retry every retryPeriod (jittered); the leader renews every
 * retryPeriod and steps down when it has not renewed for renewDeadline, which is before any other
 * candidate can see the lease expire. Unlike client-go it also steps down at once when it reads another
 * holder, waits for the guarded work to return before giving the lease up, and after losing the lease goes
 * back to being a candidate (onStoppedLeading may end the process instead, as kubevirt does).
 */
import type { Gauge, Registry } from 'prom-client';
import { realClock } from '../clock.ts';
import type { Clock } from '../clock.ts';
import { KvError } from '../errors/errors.ts';
import type { KubeClient } from '../kube/types.ts';
import type { Logger } from '../log/log.ts';
import { leadingStatusGauge } from './leading-status.ts';
import { LeaseLock } from './lease-lock.ts';
import { raceDeadline } from './race.ts';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  /** Unique per process (the pod name, plus a random suffix when the name can repeat). */
  identity: string;
  /** Whole seconds; written to the lease as leaseDurationSeconds. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  log: Logger;
  /** Runs while leading; its signal aborts when leadership ends. Awaited before the lease is given up. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once per term when it ends, whether the lease was lost or the elector was stopped. */
  onStoppedLeading: () => void;
  /** Called when another (non-empty) holder is observed, ourselves included. */
  onNewLeader?: (identity: string) => void;
  /** On a graceful stop, clear the holder so another candidate takes over at once. Default true. */
  releaseOnCancel?: boolean;
  metrics?: { registry: Registry; component: string };
  /** Jitter source in [0, 1); tests pass () => 0. */
  random?: () => number;
}

/** client-go's JitterFactor: waits while acquiring last retryPeriod × [1, 2.2). */
const JITTER = 1.2;

interface Timing {
  leaseMs: number;
  renewMs: number;
  retryMs: number;
}

function timing(opts: LeaderElectionOptions): Timing {
  const t = {
    leaseMs: opts.leaseDurationMs ?? 15_000,
    renewMs: opts.renewDeadlineMs ?? 10_000,
    retryMs: opts.retryPeriodMs ?? 2_000,
  };
  const bad = (msg: string): KvError => new KvError('KV_ERR_CONFIG', `leader election: ${msg}`);
  if (!(t.retryMs > 0)) throw bad('retryPeriod must be greater than zero');
  if (!(t.leaseMs >= 1000) || t.leaseMs % 1000 !== 0)
    throw bad('leaseDuration must be whole seconds, at least one');
  if (!(t.leaseMs > t.renewMs)) throw bad('leaseDuration must be greater than renewDeadline');
  if (!(t.renewMs > JITTER * t.retryMs)) throw bad('renewDeadline must be greater than 1.2 × retryPeriod');
  if (opts.identity === '') throw bad('identity must not be empty');
  return t;
}

export class LeaderElector {
  private readonly t: Timing;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly lock: LeaseLock;
  private readonly gauge: Gauge | undefined;
  private leading = false;
  private running = false;
  private reported = '';

  constructor(private readonly opts: LeaderElectionOptions) {
    this.t = timing(opts);
    this.clock = opts.clock ?? realClock;
    this.log = opts.log.with({
      kind: 'Lease',
      namespace: opts.namespace,
      name: opts.name,
      identity: opts.identity,
    });
    this.lock = new LeaseLock({
      client: opts.client,
      namespace: opts.namespace,
      name: opts.name,
      identity: opts.identity,
      leaseDurationSeconds: this.t.leaseMs / 1000,
      clock: this.clock,
      log: this.log,
    });
    this.gauge = opts.metrics ? leadingStatusGauge(opts.metrics) : undefined;
    this.gauge?.set(0);
  }

  /** True while this process leads (for readiness and guards). */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder in the last lease record seen ('' if none). */
  leader(): string {
    return this.lock.holder;
  }

  /** Campaigns, leads and campaigns again until the signal aborts; then returns (after releasing). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new KvError('KV_ERR_INTERNAL', 'leader elector is already running');
    this.running = true;
    try {
      while (await this.acquire(signal)) await this.lead(signal);
    } finally {
      this.running = false;
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    this.log.info('attempting to acquire leader lease');
    for (;;) {
      const r = await raceDeadline(this.lock.tryAcquireOrRenew(), this.t.renewMs, this.clock, signal);
      this.reportTransition();
      if (r === 'ok') {
        this.log.info('acquired leader lease');
        return true;
      }
      const wait = this.t.retryMs * (1 + (this.opts.random ?? Math.random)() * JITTER);
      if (!(await this.pause(wait, signal))) return false;
    }
  }

  private async lead(signal: AbortSignal): Promise<void> {
    this.setLeading(true);
    const term = new AbortController();
    const work = this.startWork(term.signal);
    const outcome = await this.renew(signal);
    this.setLeading(false);
    term.abort(new KvError('KV_ERR_ABORTED', 'leadership ended'));
    if (outcome === 'lost') {
      this.log.warning('lost leader lease');
      this.stopped();
      await work;
      return;
    }
    await work;
    if (this.opts.releaseOnCancel ?? true) {
      if (await this.lock.release()) this.log.info('released leader lease');
      this.reportTransition();
    }
    this.stopped();
  }

  /** Renews until the signal aborts ('stopped') or renewing failed for renewDeadline ('lost'). */
  private async renew(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    let renewedAt = this.clock.now();
    for (;;) {
      if (!(await this.pause(this.t.retryMs, signal))) return 'stopped';
      const started = this.clock.now();
      const left = renewedAt + this.t.renewMs - started;
      if (left <= 0) return 'lost';
      const r = await raceDeadline(this.lock.tryAcquireOrRenew(), left, this.clock, signal);
      this.reportTransition();
      if (r === 'aborted') return 'stopped';
      if (r === 'ok') renewedAt = started;
      else if (r !== 'failed') return 'lost';
    }
  }

  private async pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  private async startWork(signal: AbortSignal): Promise<void> {
    try {
      await this.opts.onStartedLeading(signal);
    } catch (err) {
      this.log.error('leading work failed', { reason: err });
    }
  }

  private stopped(): void {
    try {
      this.opts.onStoppedLeading();
    } catch (err) {
      this.log.error('onStoppedLeading failed', { reason: err });
    }
  }

  private setLeading(v: boolean): void {
    this.leading = v;
    this.gauge?.set(v ? 1 : 0);
  }

  private reportTransition(): void {
    const holder = this.lock.holder;
    if (holder === this.reported) return;
    this.reported = holder;
    if (holder === '') return;
    this.log.info('new leader observed', { leader: holder });
    try {
      this.opts.onNewLeader?.(holder);
    } catch (err) {
      this.log.error('onNewLeader failed', { reason: err });
    }
  }
}
