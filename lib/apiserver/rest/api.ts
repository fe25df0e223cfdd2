/**
 * The subresource API the api server calls (subresource-api.ts): the route of a request with the
 * SubjectAccessReview attributes KubeVirt's authorizer uses (none for the public information paths), the
 * answers (shell.ts carries out the cores' plans; the discovery documents, version and healthz here), and the
 * console, VNC and port-forward streams: their preconditions, then proxyStream to the VMI's handler.
 */
import type { Clock } from '../../kernel/clock.ts';
import { newStatus } from '../../kernel/errors/errors.ts';
import type { KubeClient } from '../../kernel/kube/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { DEFAULT_PING_INTERVAL_MS, type RelaySession } from '../../kernel/ws/relay.ts';
import { buildInfo } from '../../version/version.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { HandlerTls } from '../stream/dial.ts';
import { newStreamServer, proxyStream, refuseUpgrade } from '../stream/proxy.ts';
import type { HandlerCall } from './vmi/handler-call.ts';
import { planPortForward } from './vmi/port-forward.ts';
import type {
  SubresourceApi,
  SubresourceCall,
  SubresourceReply,
  SubresourceRoute,
  Upgrade,
} from '../subresource-api.ts';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  isRefusal,
  matchRequest,
  planVmiStream,
  rootPaths,
  statusOf,
  type Refusal,
  type Route,
} from './index.ts';
import { notBuilt, reply, RestShell } from './shell.ts';

/** The handler call of a console, VNC or port-forward stream, or its refusal. */
async function planStream(
  shell: RestShell,
  r: Extract<Route, { kind: 'subresource' }>,
  kind: 'console' | 'vnc' | 'portforward',
): Promise<{ readonly call: HandlerCall } | Refusal> {
  const vmi = await shell.vmi(r.namespace, r.name);
  if (kind !== 'portforward') return planVmiStream(kind, r.name, vmi);
  const vm = r.resource === 'virtualmachines' ? await shell.vm(r.namespace, r.name) : undefined;
  const { resource, name, port = '', protocol } = r;
  return planPortForward({ resource, name, port, ...(protocol !== undefined && { protocol }) }, vm, vmi);
}

export interface RestApiOptions {
  readonly client: KubeClient;
  readonly handlers: { readonly port: number; readonly tls: HandlerTls };
  readonly metrics: ApiMetrics;
  readonly sessions: Set<RelaySession>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly pingIntervalMs?: number;
}

interface Routed extends SubresourceRoute {
  /** undefined for OPTIONS, answered with `allow`. */
  readonly match?: Route;
  readonly allow?: string;
}

const OK: SubresourceReply = { code: 200, body: 'OK', contentType: 'text/plain; charset=utf-8' };

function information(r: Exclude<Route, { kind: 'subresource' }>): SubresourceReply {
  switch (r.kind) {
    case 'resource-list':
      return reply(200, apiResourceList(r.version));
    case 'version-endpoint':
      if (r.endpoint === 'version') return reply(200, buildInfo());
      if (r.endpoint === 'healthz') return OK;
      return notBuilt(r.endpoint, 'this build serves version and healthz');
    case 'root':
      if (r.endpoint === 'api-group-list') return reply(200, apiGroupList());
      if (r.endpoint === 'api-group') return reply(200, apiGroup());
      if (r.endpoint === 'healthz') return OK;
      if (r.endpoint === 'root-paths') return reply(200, rootPaths());
      return notBuilt(r.endpoint, 'this build serves discovery, version and healthz');
    case 'expand-vm-spec':
      return notBuilt('expand-vm-spec', 'instance types are not built');
  }
}

export function restApi(o: RestApiOptions): SubresourceApi {
  const log = o.log.with({ server: 'api' });
  const shell = new RestShell(o.client, o.handlers);
  const wss = newStreamServer();
  const streamContext = {
    wss,
    tls: o.handlers.tls,
    clock: o.clock,
    pingIntervalMs: o.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    log,
    sessions: o.sessions,
    opened: (kind: string, delta: 1 | -1): void => {
      o.metrics.opened(kind, delta);
    },
  };
  return {
    route(method, target): Routed {
      const m = matchRequest(method, target);
      if (m.kind === 'options') return { name: 'options', access: { kind: 'public' }, allow: m.allow };
      if (m.kind === 'error') {
        const status = newStatus(m.status, m.message);
        const unserved = { code: m.status, body: status, ...(m.allow !== undefined && { allow: m.allow }) };
        return { name: 'refused', access: m.access, unserved };
      }
      const name = m.route.kind === 'subresource' ? m.route.subresource : m.route.kind;
      return { name, match: m.route, access: m.access };
    },
    serve: async (call: SubresourceCall, body: string): Promise<SubresourceReply> => {
      const { match: r, allow } = call.route as Routed;
      if (r === undefined)
        return { code: 200, body: '', contentType: 'text/plain', ...(allow !== undefined && { allow }) };
      return r.kind === 'subresource' ? shell.serve(r, body) : information(r);
    },
    stream: async (call: SubresourceCall, upgrade: Upgrade): Promise<void> => {
      const r = (call.route as Routed).match;
      const streams = ['console', 'vnc', 'portforward'];
      if (r?.kind !== 'subresource' || !streams.includes(r.subresource)) {
        refuseUpgrade(upgrade.socket, newStatus(400, `${call.route.name} is not a stream`));
        return;
      }
      const kind = r.subresource as 'console' | 'vnc' | 'portforward';
      const refuse = (refusal: Refusal): void => {
        refuseUpgrade(upgrade.socket, statusOf(refusal));
      };
      const plan = await planStream(shell, r, kind);
      if (isRefusal(plan)) {
        refuse(plan);
        return;
      }
      const at = await shell.handlerOf(plan.call);
      if (isRefusal(at)) {
        refuse(at);
        return;
      }
      const scoped = log.with({ namespace: r.namespace, name: r.name, user: call.identity?.user });
      // VNC's preserveSession goes on to the handler, which keeps an open session when it is asked to.
      const keep = kind === 'vnc' ? call.query.get('preserveSession') : null;
      const path =
        keep === null ? plan.call.path : `${plan.call.path}?preserveSession=${encodeURIComponent(keep)}`;
      await proxyStream(streamContext, { kind, address: at, path }, upgrade, scoped);
    },
  };
}
