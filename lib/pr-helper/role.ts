/**
 * The `pr-helper` role (kubevirt cmd/pr-helper, the pr-helper container of the virt-handler DaemonSet):
 * qemu-pr-helper supervised on the socket QEMU connects to for SCSI persistent reservations (supervise.ts),
 * with the health server: /metrics (kubevirt_pr_helper_restarts_total) and /readyz, ready only while the socket
 * accepts a connection (probed every probeIntervalMs). The role talks to the cluster only with `secureMetrics`:
 * to ask who may read /metrics.
 */
import { connect } from 'node:net';
import { Counter } from 'prom-client';
import { realClock, type Clock } from '../kernel/clock.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { SpawnSpec } from '../kernel/process/spawn.ts';
import {
  requireRegistry,
  runRole,
  type RoleContext,
  type RoleWork,
  type SecureMetrics,
} from '../kernel/runtime/role.ts';
import { superviseHelper, type Backoff } from './supervise.ts';

export const DEFAULT_PR_HELPER_SOCKET = '/var/run/kubevirt/daemons/pr/pr-helper.sock';
export const DEFAULT_PR_HELPER_BINARY = '/usr/bin/qemu-pr-helper';
const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };

export interface PrHelperRoleOptions {
  readonly socket: string;
  readonly binary: string;
  /** Where the helper's stdout and stderr go: a file appended to, or our stderr when absent. */
  readonly helperLog?: string;
  readonly healthPort: number;
  readonly healthHost?: string;
  /** TLS on the health port, /metrics authorized by the cluster; plain and open without. */
  readonly secureMetrics?: SecureMetrics | undefined;
  readonly backoff?: Backoff;
  /** How long the helper has after SIGTERM before SIGKILL (default 5 s). */
  readonly graceMs?: number;
  /** How often the socket is probed for readiness (default 1 s). */
  readonly probeIntervalMs?: number;
  readonly log: Logger;
  readonly clock?: Clock;
}

/** Whether a unix socket at path accepts a connection now. */
export const acceptsConnection = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect({ path });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      s.destroy();
      resolve(false);
    });
  });

/** Keeps `ready` in step with the socket until the role stops. */
function probeSocket(opts: PrHelperRoleOptions, clock: Clock, ctx: RoleContext): () => boolean {
  const stop = new AbortController();
  let ready = false;
  const probe = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      ready = await acceptsConnection(opts.socket);
      await clock.sleep(opts.probeIntervalMs ?? 1000, stop.signal).catch(() => undefined);
    }
    ready = false;
  };
  const done = probe();
  ctx.defer(() => {
    stop.abort();
    return done;
  });
  return () => ready;
}

function start(opts: PrHelperRoleOptions, ctx: RoleContext): RoleWork {
  const clock = opts.clock ?? realClock;
  const restarts = new Counter({
    name: 'kubevirt_pr_helper_restarts_total',
    help: 'Times qemu-pr-helper was started again after it exited',
    registers: [requireRegistry(ctx)],
  });
  const ready = probeSocket(opts, clock, ctx);
  ctx.readinessCheck('pr-helper-socket', () => ready() || `${opts.socket} does not accept connections`);
  const log: SpawnSpec['log'] = opts.helperLog ?? { fd: 2, path: 'stderr' };
  return {
    run: (signal) =>
      superviseHelper(
        {
          binary: opts.binary,
          socket: opts.socket,
          log,
          backoff: opts.backoff ?? DEFAULT_BACKOFF,
          graceMs: opts.graceMs ?? 5000,
          restarts,
          logger: opts.log,
          clock,
        },
        signal,
      ),
  };
}

export function runPrHelperRole(opts: PrHelperRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'pr-helper',
      log: opts.log,
      health: { port: opts.healthPort, host: opts.healthHost, secure: opts.secureMetrics },
      start: (ctx) => Promise.resolve(start(opts, ctx)),
    },
    signal,
  );
}
