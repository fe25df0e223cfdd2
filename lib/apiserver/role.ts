/**
 * The `api` role (kubevirt cmd/virt-api): one TLS port for the admission webhooks and the
 * subresources.kubevirt.io API (server.ts), and the health server (`/healthz`, `/readyz`, `/metrics`). Who may
 * send identity headers is read from `kube-system/extension-apiserver-authentication` (the request-header CA
 * and its allowed names) and, for the Deckhouse virtualization-api mode, from `--client-ca-file`; the
 * ConfigMap is read again every minute, so a rotated front-proxy CA is picked up; the api's own certificate files
 * are read again every few seconds (tls-reload.ts). Requests to the cluster go
 * through the rename rules, limited by the client's QPS and burst (the fork's VIRT_API_RATE_LIMITER_QPS /
 * _BURST), each of three clients with its own limiter: the SubjectAccessReviews, the subresource calls, and the
 * webhooks' caches, so a flood of reviews never holds up a console or a VM start. On SIGTERM the server stops
 * accepting and ends the open sessions with a close frame.
 */
import { randomUUID } from 'node:crypto';
import { realClock } from '../kernel/clock.ts';
import { errorMessage, isNotFound } from '../kernel/errors/errors.ts';
import { SharedInformer } from '../kernel/informer/informer.ts';
import {
  CONFIG_MAPS,
  HttpKubeClient,
  PODS,
  type KubeClient,
  type KubeObject,
  type RestConfig,
} from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { HealthTls } from '../kernel/metrics/server.ts';
import {
  requireRegistry,
  runRole,
  untilAborted,
  type RoleContext,
  type RoleWork,
} from '../kernel/runtime/role.ts';
import type { RelaySession } from '../kernel/ws/relay.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  type KubeVirt,
  type VirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from '../kubevirt/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import {
  namedTrust,
  parseRequestHeaderConfig,
  SarAuthorizer,
  type AuthConfig,
  type NamedTrust,
} from './auth/index.ts';
import { newApiMetrics } from './metrics.ts';
import { restApi } from './rest/api.ts';
import { startApiServer } from './server.ts';
import { ReloadableHandlerTls, type HandlerTls } from './stream/dial.ts';
import { admitters, type AdmissionLookup } from './webhooks/admitters.ts';
import type { EvictionIo, EvictionRead } from './webhooks/pod-eviction.ts';
import { watchApiTls, type ApiTlsFiles } from './tls-reload.ts';

const AUTH_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' };
const AUTH_REFRESH_MS = 60_000;
const INSTALL_NAMESPACE = 'd8-virtualization';

export interface ApiRoleOptions {
  readonly config: RestConfig;
  readonly port: number;
  readonly host?: string;
  readonly tls: { readonly cert: string; readonly key: string };
  /** The Deckhouse virtualization-api's CA (PEM) and its certificates' names, trusted to send identity headers. */
  readonly clientCa?: TrustedClients;
  /** The callers of the admission webhooks: the CA (PEM) of their client certificates and their names. */
  readonly webhookClients: TrustedClients;
  /** The handlers' REST servers: their port, and the TLS the api dials them with. */
  readonly handlers: { readonly port: number; readonly tls: HandlerTls };
  /** Where tls and handlers.tls were read from, watched for rotation; a part without files stays as given. */
  readonly tlsFiles?: ApiTlsFiles;
  /** How often those files are read (default DEFAULT_PEM_POLL_MS). */
  readonly tlsReloadIntervalMs?: number;
  /** Names of the module's own service accounts (status changes on VMIs are theirs only). */
  readonly ownServiceAccounts: readonly string[];
  /** Users that are virt-handler's service account, held to their node by NodeRestriction (own ones too). */
  readonly handlerServiceAccounts?: readonly string[];
  /** The install namespace, whose KubeVirt CR configures admission (default d8-virtualization). */
  readonly namespace?: string;
  readonly healthPort: number;
  readonly healthHost?: string;
  /** TLS on the health port, /metrics authorized by the cluster; plain and open without. */
  readonly metricsTls?: HealthTls | undefined;
  readonly log: Logger;
}

interface TrustedClients {
  readonly caPem: string;
  readonly allowedNames: readonly string[];
}

async function readAuth(client: KubeClient, virtualization: NamedTrust | undefined): Promise<AuthConfig> {
  const cm = await client.get<KubeObject & { data?: Record<string, string> }>(
    CONFIG_MAPS,
    AUTH_CONFIGMAP.name,
    {
      namespace: AUTH_CONFIGMAP.namespace,
    },
  );
  return {
    requestHeader: parseRequestHeaderConfig(cm.data ?? {}),
    ...(virtualization !== undefined && { virtualization }),
  };
}

/** A read of one object: undefined when it is not there, the error's text when the read fails. */
async function readOne<T extends KubeObject>(read: () => Promise<T>): Promise<EvictionRead<T>> {
  try {
    return await read();
  } catch (err) {
    return isNotFound(err) ? undefined : { error: errorMessage(err) };
  }
}

/** The eviction interceptors' live reads of Pods and VMIs, and the VMI's evacuation mark. */
function evictionIo(client: KubeClient): EvictionIo {
  return {
    pod: (namespace, name) => readOne(() => client.get<Pod>(PODS, name, { namespace })),
    vmi: (namespace, name) =>
      readOne(() => client.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace })),
    markEvacuation: async ({ namespace, name }, node, dryRun): Promise<void> => {
      const patch = [{ op: 'add', path: '/status/evacuationNodeName', value: node }];
      await client.patch(VIRTUAL_MACHINE_INSTANCES, name, patch, { namespace, type: 'json', dryRun });
    },
  };
}

/**
 * The VMIs and migrations the VM and migration rules read, from informers over the whole cluster, and the
 * KubeVirt CRs of the install namespace (KubeVirt's virt-api keeps the same caches), so a review never waits on
 * a request to the cluster.
 */
function cachedLookup(client: KubeClient, ctx: RoleContext, log: Logger, namespace: string): AdmissionLookup {
  const stop = new AbortController();
  const vmis = new SharedInformer<VirtualMachineInstance>({ client, gvr: VIRTUAL_MACHINE_INSTANCES, log });
  const kubevirts = new SharedInformer<KubeVirt>({ client, gvr: KUBEVIRTS, namespace, log });
  const migrations = new SharedInformer<VirtualMachineInstanceMigration>({
    client,
    gvr: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    log,
    indexers: { namespace: (m): string[] => [m.metadata.namespace ?? ''] },
  });
  const running = [vmis.run(stop.signal), migrations.run(stop.signal), kubevirts.run(stop.signal)];
  ctx.defer(async () => {
    stop.abort();
    await Promise.all(running);
  });
  ctx.readinessCheck(
    'admission-caches',
    () => (vmis.hasSynced() && migrations.hasSynced() && kubevirts.hasSynced()) || 'caches not synced',
  );
  return {
    vmi: (namespace, name): Promise<VirtualMachineInstance | undefined> =>
      Promise.resolve(vmis.store.get(`${namespace}/${name}`)),
    migrations: (namespace): Promise<VirtualMachineInstanceMigration[]> =>
      Promise.resolve(migrations.store.byIndex('namespace', namespace)),
    installKubeVirts: () => kubevirts.store.list(),
    eviction: evictionIo(client),
  };
}

const trusted = (t: TrustedClients, caFlag: string, namesFlag: string): NamedTrust =>
  namedTrust({ pem: t.caPem, from: caFlag }, { list: t.allowedNames, from: namesFlag });

async function start(o: ApiRoleOptions, ctx: RoleContext): Promise<RoleWork> {
  // Three clients, three rate limiters: the subresource calls, the SubjectAccessReviews, the webhooks' IO.
  const newClient = (): HttpKubeClient => {
    const c = new HttpKubeClient(o.config);
    ctx.defer(() => c.destroy());
    return c;
  };
  const [direct, sarClient, webhookDirect] = [newClient(), newClient(), newClient()];
  const rules = buildRuleIndex(KUBEVIRT_REWRITE_RULES);
  const client = rewritingClient(direct, rules);
  const webhookClient = rewritingClient(webhookDirect, rules);
  const clock = realClock;
  let clientCa = o.clientCa && trusted(o.clientCa, '--client-ca-file', '--client-ca-allowed-names');
  const webhookClients = trusted(
    o.webhookClients,
    '--webhook-client-ca-file',
    '--webhook-client-allowed-names',
  );
  const auth = await readAuth(direct, clientCa);
  const registry = requireRegistry(ctx);
  const metrics = newApiMetrics(registry, clock);
  const sessions = new Set<RelaySession>();
  const handlerUsers = new Set(o.handlerServiceAccounts);
  const own = new Set([...o.ownServiceAccounts, ...handlerUsers]);
  const handlers = { port: o.handlers.port, tls: new ReloadableHandlerTls(o.handlers.tls) };
  const server = await startApiServer({
    port: o.port,
    ...(o.host !== undefined && { host: o.host }),
    tls: o.tls,
    auth,
    authorizer: new SarAuthorizer({ client: sarClient, clock }),
    webhookClients,
    admitters: admitters({
      clock,
      uuid: randomUUID,
      isOwnServiceAccount: (user) => own.has(user),
      isHandlerServiceAccount: (user) => handlerUsers.has(user),
      lookup: cachedLookup(webhookClient, ctx, o.log, o.namespace ?? INSTALL_NAMESPACE),
      log: o.log,
    }),
    subresources: restApi({ client, handlers, metrics, sessions, clock, log: o.log }),
    metrics,
    sessions,
    clock,
    log: o.log,
  });
  ctx.defer(() => server.close());
  const { tls, tlsFiles: files, tlsReloadIntervalMs: intervalMs, log } = o;
  /** The client certificate trust read again (the request-header CA from its ConfigMap, the client CA). */
  const refreshAuth = async (): Promise<void> => {
    try {
      server.reloadAuth(await readAuth(direct, clientCa));
    } catch (err) {
      log.warning('cannot read the request-header configuration again; keeping the last one', {
        reason: errorMessage(err),
      });
    }
  };
  const webhookClientCa = {
    current: o.webhookClients.caPem,
    apply: (caPem: string): void => {
      server.reloadWebhookClients(
        trusted({ ...o.webhookClients, caPem }, '--webhook-client-ca-file', '--webhook-client-allowed-names'),
      );
    },
  };
  const requestClients = o.clientCa && {
    current: o.clientCa.caPem,
    apply: (caPem: string): void => {
      const t = o.clientCa;
      if (t === undefined) return;
      clientCa = trusted({ ...t, caPem }, '--client-ca-file', '--client-ca-allowed-names');
      void refreshAuth();
    },
  };
  watchApiTls(
    {
      files,
      server,
      serving: tls,
      handlerTls: handlers.tls,
      webhookClientCa,
      ...(requestClients !== undefined && { clientCa: requestClients }),
      log,
      intervalMs,
    },
    ctx,
  );
  return {
    run: async (signal): Promise<void> => {
      const refresh = async (): Promise<void> => {
        for (;;) {
          await clock.sleep(AUTH_REFRESH_MS, signal).catch(() => undefined);
          if (signal.aborted) return;
          await refreshAuth();
        }
      };
      await Promise.all([refresh(), untilAborted(signal)]);
    },
  };
}

export function runApiRole(o: ApiRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'api',
      log: o.log,
      health: {
        port: o.healthPort,
        host: o.healthHost,
        secure: o.metricsTls && { tls: o.metricsTls, config: o.config },
      },
      start: (ctx) => start(o, ctx),
    },
    signal,
  );
}
