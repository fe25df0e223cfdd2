/**
 * For the controller bench: the api role's VM mutating webhook in front of one namespace of the bench's control
 * plane, as a cluster would have it: the api in this process, the rewriter's webhook proxy before it (kube-api
 * sends internal names), a MutatingWebhookConfiguration by URL for that namespace. Removed by the returned stop.
 */
import { freePorts } from '../testenv/ports.ts';
import { WEBHOOKS } from '../lib/kubevirt/webhooks.ts';
import { WEBHOOK_CLIENT_CN } from '../lib/apiserver/auth/index.ts';
import { runApiRole } from '../lib/apiserver/role.ts';
import { loadRestConfig, type GroupVersionResource, type KubeClient } from '../lib/kernel/kube/index.ts';
import { memoryLogger, nopLogger } from '../lib/kernel/log/log.ts';
import { newRegistry } from '../lib/kernel/metrics/registry.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { makeTestPki, pemOf } from '../testenv/pki.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../lib/rename/index.ts';
import { rewriterMetrics } from '../lib/rewriter/proxy/metrics.ts';
import { startWebhookProxy } from '../lib/rewriter/proxy/webhook.ts';

const MUTATING: GroupVersionResource = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
};

export async function vmMutatingWebhook(
  kubeconfig: string,
  direct: KubeClient,
  ns: string,
): Promise<() => Promise<void>> {
  const pki = await makeTestPki([
    { name: 'ca', cn: 'bench-ca', ca: true },
    { name: 'serving', cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'webhook-client', cn: WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
  ]);
  const ca = pemOf(pki, 'ca').cert;
  const [apiPort = 0] = await freePorts(1);
  const { log, lines } = memoryLogger('virt-api', 1);
  const stop = new AbortController();
  const api = runApiRole(
    {
      config: loadRestConfig({ kubeconfig, inCluster: false, userAgent: 'kubevirt-ts/api-bench', qps: 0 }),
      port: apiPort,
      host: '127.0.0.1',
      tls: pemOf(pki, 'serving'),
      webhookClients: { caPem: ca, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: { port: 4101, tls: { ca: Buffer.from(ca), cert: Buffer.from(''), key: Buffer.from('') } },
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log,
    },
    stop.signal,
  );
  await waitFor(() => lines.some((l) => l['msg'] === 'api listening'), 'the api listening', {
    timeoutMs: 30_000,
  });
  const proxy = await startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    cert: pemOf(pki, 'serving').cert,
    key: pemOf(pki, 'serving').key,
    upstream: `https://127.0.0.1:${apiPort}`,
    upstreamCa: ca,
    upstreamClient: pemOf(pki, 'webhook-client'),
    index: buildRuleIndex(KUBEVIRT_REWRITE_RULES),
    metrics: rewriterMetrics(newRegistry({ defaultMetrics: false })),
    log: nopLogger,
    maxBodyBytes: 3 * 1024 * 1024,
  });
  const name = `kvts-bench-${ns}`;
  await direct.create(MUTATING, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'mutate.vm.kubevirt.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: {
          url: `https://127.0.0.1:${proxy.port}${WEBHOOKS.vmMutate.path}`,
          caBundle: Buffer.from(ca).toString('base64'),
        },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
        rules: [
          {
            apiGroups: ['internal.virtualization.deckhouse.io'],
            apiVersions: ['v1'],
            resources: ['internalvirtualizationvirtualmachines'],
            operations: ['CREATE', 'UPDATE'],
          },
        ],
      },
    ],
  });
  return async () => {
    await direct.delete(MUTATING, name).catch(() => undefined);
    await proxy.close();
    stop.abort();
    await api;
  };
}
