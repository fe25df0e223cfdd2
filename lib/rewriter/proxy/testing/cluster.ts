/**
 * Integration-test support: the real API server from KUBECONFIG with the internal CRDs installed, a fresh
 * namespace, a direct client (internal names), and the kube-api proxy in this process with a client speaking
 * kubevirt.io through it.
 */
import { Registry } from 'prom-client';
import { newNamespaceName } from '../../../../e2e/testenv/handle.ts';
import { installCrds } from '../../../api/install-crds.ts';
import { isNotFound } from '../../../kernel/errors/errors.ts';
import { HttpKubeClient, loadRestConfig, NAMESPACES, type RestConfig } from '../../../kernel/kube/index.ts';
import { nopLogger } from '../../../kernel/log/log.ts';
import { KUBEVIRT_REWRITE_RULES } from '../../../rename/rules/kubevirt-rules.ts';
import { buildRuleIndex, type RuleIndex } from '../../../rename/rules/rule-index.ts';
import { startKubeApiProxy } from '../kube-api.ts';
import { rewriterMetrics } from '../metrics.ts';
import type { ProxyServer } from '../serve.ts';
import { Upstream } from '../upstream.ts';

export interface Cluster {
  ns: string;
  index: RuleIndex;
  config: RestConfig;
  /** Straight to the API server: sees internal names. */
  direct: HttpKubeClient;
  proxy: ProxyServer;
  /** Base URL of the proxy. */
  proxyUrl: string;
  /** Through the proxy: speaks kubevirt.io. */
  viaProxy: HttpKubeClient;
  close(): Promise<void>;
}

export async function startCluster(prefix: string): Promise<Cluster> {
  const config = loadRestConfig({ inCluster: false, userAgent: 'kubevirt-ts/rewriter-itest', qps: 0 });
  const direct = new HttpKubeClient(config, { keepAliveTimeout: 10 });
  await installCrds(direct);
  const ns = newNamespaceName(prefix);
  await direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const index = buildRuleIndex(KUBEVIRT_REWRITE_RULES);
  const upstream = new Upstream({ config, keepAliveTimeout: 10 });
  const proxy = await startKubeApiProxy({
    index,
    upstream,
    metrics: rewriterMetrics(new Registry()),
    log: nopLogger,
    maxBodyBytes: 32 << 20,
    host: '127.0.0.1',
    port: 0,
  });
  const proxyUrl = `http://127.0.0.1:${proxy.port}`;
  const viaProxy = new HttpKubeClient(
    { server: proxyUrl, qps: 0, burst: 1, userAgent: 'kubevirt-ts/rewriter-itest' },
    { keepAliveTimeout: 10 },
  );
  return {
    ns,
    index,
    config,
    direct,
    proxy,
    proxyUrl,
    viaProxy,
    close: async (): Promise<void> => {
      await viaProxy.destroy();
      await proxy.close(100);
      await upstream.destroy();
      await direct.delete(NAMESPACES, ns).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      await direct.destroy();
    },
  };
}

/** Polls until check passes (or throws its last failure after timeoutMs). */
export async function eventually(check: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
