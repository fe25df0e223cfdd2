/**
 * The api on the local cluster, reached the way users reach it, for a test or a bench:
 * - the handler's REST server on the node's address (the api dials the Node's InternalIP, as the DaemonSet
 *   runs with hostNetwork), with its own certificates (`handlerConsole`, made before the handler starts);
 * - the api role in this process on the node's address, registered with the aggregation layer
 *   (virt-registration.ts); kube-apiserver authenticates the user and sends X-Remote-* with its front-proxy
 *   certificate;
 * - when asked, the VM webhooks registered by URL at an in-process rewriter webhook proxy, for the namespace only,
 *   the proxy showing the api its webhook client certificate and serving only kube-apiserver's.
 */
import { APISERVER_WEBHOOK_CLIENT_CN, WEBHOOKS } from '../../../lib/kubevirt/webhooks.ts';
import { WEBHOOK_CLIENT_CN } from '../../../lib/apiserver/auth/index.ts';
import { runApiRole } from '../../../lib/apiserver/role.ts';
import { makeRestPki, type RestPki } from '../../../lib/handler/rest/testing/pki.ts';
import { loadRestConfig, type HttpKubeClient, type RestConfig } from '../../../lib/kernel/kube/index.ts';
import { memoryLogger, nopLogger } from '../../../lib/kernel/log/log.ts';
import { newRegistry } from '../../../lib/kernel/metrics/registry.ts';
import { waitFor } from '../../../lib/kernel/testing/wait.ts';
import { httpsCall } from '../../../lib/kernel/tls/testing/https.ts';
import { makeTestPki, pemOf } from '../../../testenv/pki.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../../lib/rename/index.ts';
import { rewriterMetrics } from '../../../lib/rewriter/proxy/metrics.ts';
import { startWebhookProxy } from '../../../lib/rewriter/proxy/webhook.ts';
import { freePorts } from '../../../testenv/ports.ts';
import { NETWORK } from '../layout.ts';
import { registerApi, unregisterApi, type ApiRegistration } from '../virt-registration.ts';
import { consoleServerFlags } from './roles.ts';

const NODE_IP = NETWORK.nodeIp;

/** A free TCP port on the node's address (below the ephemeral range, as the control plane's). */
const freePort = async (host: string): Promise<number> => (await freePorts(1, Math.random, host))[0] ?? 0;

export interface HandlerConsole {
  readonly pki: RestPki;
  readonly port: number;
  /** The handler's flags for this REST server (certificates written under `<dir>/<name>`). */
  readonly flags: string[];
}

export async function handlerConsole(dir: string, name: string): Promise<HandlerConsole> {
  const pki = await makeRestPki();
  const port = await freePort(NODE_IP);
  return { pki, port, flags: await consoleServerFlags(dir, name, pki, { address: NODE_IP, port }) };
}

export interface ApiStackOptions {
  readonly kubeconfig: string;
  /** The namespace the Service, EndpointSlice and webhook scope live in. */
  readonly ns: string;
  readonly direct: HttpKubeClient;
  readonly handler: HandlerConsole;
  readonly webhooks: boolean;
}

export interface ApiStack {
  /** The cluster admin's client configuration (kube-apiserver's address, CA and client certificate). */
  readonly admin: RestConfig;
  /** The path of a subresource in the namespace. */
  subresource(resource: string, name: string, sub: string): string;
  /** A request to kube-apiserver as the admin, or as `user` (impersonated: kube-apiserver authenticates as that user). */
  call(method: string, path: string, o?: { user?: string; body?: string }): Promise<Answer>;
  stop(): Promise<void>;
}

export interface Answer {
  readonly status: number;
  readonly text: string;
}

const webhookConfig = (ns: string): string => `kvts-api-test-${ns}`;

/** The api role running, served through kube-apiserver (and its webhooks registered when asked). */
export async function startApiStack(o: ApiStackOptions): Promise<ApiStack> {
  const admin = loadRestConfig({
    kubeconfig: o.kubeconfig,
    inCluster: false,
    userAgent: 'kubevirt-ts/api-stack',
  });
  const call = async (
    method: string,
    path: string,
    c: { user?: string; body?: string } = {},
  ): Promise<Answer> => {
    const a = await httpsCall(new URL(path, admin.server), {
      method,
      ca: admin.ca,
      cert: admin.cert,
      key: admin.key,
      ...(c.user !== undefined && { headers: { 'Impersonate-User': c.user } }),
      ...(c.body !== undefined && { body: c.body }),
    });
    return { status: a.status, text: a.text };
  };
  const apiPort = await freePort(NODE_IP);
  const pki = await makeTestPki([
    { name: 'ca', cn: 'api-test-ca', ca: true },
    {
      name: 'serving',
      cn: 'virt-api',
      issuer: 'ca',
      usage: 'serverAuth',
      sans: `DNS:virt-api.${o.ns}.svc,IP:${NODE_IP},IP:127.0.0.1`,
    },
    { name: 'webhook-client', cn: WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
  ]);
  const apiLog = memoryLogger('virt-api', 2);
  const stopApi = new AbortController();
  const { pki: handlerPki, port: handlerPort } = o.handler;
  const api = runApiRole(
    {
      config: loadRestConfig({ kubeconfig: o.kubeconfig, inCluster: false, userAgent: 'kubevirt-ts/api' }),
      port: apiPort,
      host: NODE_IP,
      tls: pemOf(pki, 'serving'),
      webhookClients: { caPem: pemOf(pki, 'ca').cert, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: {
        port: handlerPort,
        tls: {
          ca: handlerPki.ca.cert,
          cert: handlerPki.client.cert,
          key: handlerPki.client.key,
          serverName: 'virt-handler',
        },
      },
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log: apiLog.log,
    },
    stopApi.signal,
  );
  let proxy: { close(): Promise<void>; port: number } | undefined;
  const registration = (webhookPort: number): ApiRegistration => ({
    namespace: o.ns,
    port: apiPort,
    caPem: pemOf(pki, 'ca').cert,
    ...(o.webhooks && {
      webhooks: {
        configName: webhookConfig(o.ns),
        baseUrl: `https://127.0.0.1:${webhookPort}`,
        scope: ['kubernetes.io/metadata.name', o.ns],
        // The test's controller and handler write as the admin, which this api does not count as its own.
        only: [WEBHOOKS.vmValidate.path, WEBHOOKS.vmMutate.path],
      },
    }),
  });
  const stop = async (): Promise<void> => {
    await unregisterApi(o.direct, { namespace: o.ns, webhookConfig: webhookConfig(o.ns) });
    await proxy?.close();
    stopApi.abort();
    await api;
  };
  try {
    await waitFor(() => apiLog.lines.some((l) => l['msg'] === 'api listening'), 'the api listening', {
      timeoutMs: 30_000,
    });
    if (o.webhooks) {
      proxy = await startWebhookProxy({
        host: '127.0.0.1',
        port: 0,
        cert: pemOf(pki, 'serving').cert,
        key: pemOf(pki, 'serving').key,
        upstream: `https://${NODE_IP}:${apiPort}`,
        upstreamCa: pemOf(pki, 'ca').cert,
        upstreamClient: pemOf(pki, 'webhook-client'),
        // kube-apiserver shows its webhook client certificate of the cluster CA (the CA of its serving certificate).
        callers: { ca: admin.ca ?? '', allowedNames: [APISERVER_WEBHOOK_CLIENT_CN] },
        index: buildRuleIndex(KUBEVIRT_REWRITE_RULES),
        metrics: rewriterMetrics(newRegistry({ defaultMetrics: false })),
        log: nopLogger,
        maxBodyBytes: 3 * 1024 * 1024,
      });
    }
    await registerApi(o.direct, registration(proxy?.port ?? 0));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    admin,
    subresource: (resource, name, sub) =>
      `/apis/subresources.kubevirt.io/v1/namespaces/${o.ns}/${resource}/${name}/${sub}`,
    call,
    stop,
  };
}
