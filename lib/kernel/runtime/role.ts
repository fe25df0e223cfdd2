/**
 * The skeleton every role runs on (kubevirt pkg/service, cmd/virt-*: one Run per component):
 * - with `health`, one prom-client registry for the process and the /metrics, /healthz, /readyz server
 *   (readiness checks added by the role, plus `leader` when it runs under a Lease); with `health.secure` it
 *   serves TLS and /metrics answers only callers the cluster allows to get it, asked with the role's identity
 *   on a client of its own (a flood of scrapes never spends the role's rate limit);
 * - `start` sets up what lives as long as the process (clients, servers, daemons) and registers its cleanups;
 * - the work it returns runs until the signal aborts, or, with a Lease, only while this replica leads
 *   (kubevirt watch/application.go onStartedLeading), possibly several times;
 * - on the way out the cleanups run in reverse order of registration (a failing one is logged, the rest still
 *   run), the health server last.
 * prom-client and the leader elector are loaded only when asked for: the launcher, one per VM, needs neither.
 */
import type { Registry } from 'prom-client';
import { errorMessage, KvError } from '../errors/errors.ts';
import type { RestConfig } from '../kube/config.ts';
import type { KubeClient } from '../kube/types.ts';
import type { HttpKubeClient } from '../kube/client.ts';
import type { LeaderElectionOptions } from '../leader/election.ts';
import type { Logger } from '../log/log.ts';
import type { HealthServer, HealthServerOptions, HealthTls, ReadinessCheck } from '../metrics/server.ts';

export interface RoleContext {
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** The process's registry (with `health` only). */
  readonly registry: Registry | undefined;
  /** The port the health server listens on (with `health` only; tests ask for port 0). */
  readonly healthPort: number | undefined;
  /** Adds a /readyz check, read on every request. */
  readinessCheck(name: string, check: ReadinessCheck): void;
  /** Runs cleanup when the role stops, before the cleanups registered earlier. */
  defer(cleanup: () => Promise<void> | void): void;
}

interface RoleLease {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly timing?: Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>;
}

export interface RoleWork {
  /** Does the role's work until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Run only while holding this Lease. */
  readonly lease?: RoleLease;
}

/** TLS on the health port and /metrics authorized by the cluster, which the reviews reach with `config`. */
export interface SecureMetrics {
  readonly tls: HealthTls;
  readonly config: RestConfig;
}

interface HealthOptions {
  readonly port: number;
  readonly host?: string | undefined;
  readonly secure?: SecureMetrics | undefined;
}

export interface RoleOptions {
  /** The component name in logs and metrics ('controller', 'handler', ...). */
  readonly component: string;
  readonly log: Logger;
  readonly health?: HealthOptions;
  start(ctx: RoleContext): Promise<RoleWork>;
}

/** Resolves once signal aborts (at once when it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else
      signal.addEventListener(
        'abort',
        () => {
          resolve();
        },
        { once: true },
      );
  });
}

/** The registry of a role started with `health` (a programming error otherwise). */
export function requireRegistry(ctx: RoleContext): Registry {
  if (ctx.registry === undefined)
    throw new KvError('KV_ERR_INTERNAL', 'this role needs health (the metrics registry)');
  return ctx.registry;
}

/** The health server's TLS and authorizer, and the client its reviews go through (closed after the server). */
async function secured(
  s: SecureMetrics | undefined,
): Promise<{ options: Partial<HealthServerOptions>; client?: HttpKubeClient }> {
  if (s === undefined) return { options: {} };
  const [{ HttpKubeClient }, { ReviewingAuthorizer }] = await Promise.all([
    import('../kube/client.ts'),
    import('../metrics/authorize.ts'),
  ]);
  const client = new HttpKubeClient(s.config);
  return { options: { tls: s.tls, authorizer: new ReviewingAuthorizer({ client }) }, client };
}

async function startHealth(
  opts: RoleOptions,
  checks: Record<string, ReadinessCheck>,
): Promise<{ registry: Registry; server: HealthServer } | undefined> {
  const health = opts.health;
  if (health === undefined) return undefined;
  const [{ newRegistry }, { startHealthServer }] = await Promise.all([
    import('../metrics/registry.ts'),
    import('../metrics/server.ts'),
  ]);
  const registry = newRegistry();
  const { options, client } = await secured(health.secure);
  const closeClient = async (): Promise<void> => {
    await client?.destroy();
  };
  const server = await startHealthServer({
    port: health.port,
    ...(health.host !== undefined && { host: health.host }),
    registry,
    checks,
    log: opts.log,
    ...options,
  }).catch(async (err: unknown) => {
    await closeClient();
    throw err;
  });
  const close = (): Promise<void> => server.close().finally(closeClient);
  return { registry, server: { port: server.port, close } };
}

async function runLeading(
  opts: RoleOptions,
  work: RoleWork & { lease: RoleLease },
  ctx: RoleContext,
): Promise<void> {
  const { LeaderElector } = await import('../leader/election.ts');
  const lease = work.lease;
  const elector = new LeaderElector({
    client: lease.client,
    namespace: lease.namespace,
    name: lease.name,
    identity: lease.identity,
    ...lease.timing,
    log: opts.log,
    onStartedLeading: (signal): Promise<void> => work.run(signal),
    onStoppedLeading: (): void => {
      opts.log.info('stopped leading');
    },
    ...(ctx.registry !== undefined && { metrics: { registry: ctx.registry, component: opts.component } }),
  });
  ctx.readinessCheck('leader', () => elector.isLeader() || 'not the leader');
  await elector.run(ctx.signal);
}

async function runCleanups(cleanups: (() => Promise<void> | void)[], log: Logger): Promise<void> {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (err) {
      log.warning('cleanup step failed', { reason: errorMessage(err) });
    }
  }
}

/** Runs the role until signal aborts and everything it started has stopped. */
export async function runRole(opts: RoleOptions, signal: AbortSignal): Promise<void> {
  const checks: Record<string, ReadinessCheck> = {};
  const cleanups: (() => Promise<void> | void)[] = [];
  const health = await startHealth(opts, checks);
  const ctx: RoleContext = {
    log: opts.log,
    signal,
    registry: health?.registry,
    healthPort: health?.server.port,
    readinessCheck: (name, check): void => {
      checks[name] = check;
    },
    defer: (cleanup): void => {
      cleanups.push(cleanup);
    },
  };
  try {
    const work = await opts.start(ctx);
    if (work.lease === undefined) await work.run(signal);
    else await runLeading(opts, { ...work, lease: work.lease }, ctx);
  } finally {
    await runCleanups(cleanups, opts.log);
    await health?.server.close();
  }
}
