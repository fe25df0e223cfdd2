/**
 * Readiness of the rewriter: the API server behind it answers /readyz. Probed in the background every
 * intervalMs; the health server's check reads the last result without waiting.
 */
import { realClock, type Clock } from '../../kernel/clock.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import { redactSecrets } from '../../kernel/errors/redact.ts';
import type { ReadinessCheck } from '../../kernel/metrics/server.ts';
import type { Upstream } from './upstream.ts';

export interface UpstreamProbeOptions {
  readonly upstream: Upstream;
  readonly clock?: Clock;
  /** Default 10 s. */
  readonly intervalMs?: number;
  /** Default 5 s. */
  readonly timeoutMs?: number;
}

export class UpstreamProbe {
  private state: true | string = 'the API server has not been probed yet';

  constructor(private readonly o: UpstreamProbeOptions) {}

  /** For the health server's /readyz. */
  readonly check: ReadinessCheck = () => this.state;

  /** Probes once and keeps the result. */
  async probe(): Promise<void> {
    const origin = this.o.upstream.url.origin;
    try {
      const res = await this.o.upstream.request({
        method: 'GET',
        url: '/readyz',
        headers: { accept: 'text/plain' },
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 5000),
        as: 'rewriter',
      });
      await res.body.dump();
      this.state =
        res.statusCode === 200 ? true : `the API server ${origin} answered /readyz with ${res.statusCode}`;
    } catch (err) {
      this.state = `the API server ${origin} is unreachable: ${redactSecrets(errorMessage(err))}`;
    }
  }

  /** Probes until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const clock = this.o.clock ?? realClock;
    while (!signal.aborted) {
      await this.probe();
      await clock.sleep(this.o.intervalMs ?? 10_000, signal).catch(() => undefined);
    }
  }
}
