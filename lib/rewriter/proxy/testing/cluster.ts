/**
 * Integration-test support for the proxy: the test cluster (e2e/testenv/cluster.ts: CRDs, a fresh namespace, a
 * direct client) and the kube-api proxy in this process with a client speaking kubevirt.io through it.
 */
import { Registry } from 'prom-client';
import { testCluster, type TestCluster } from '../../../../e2e/testenv/cluster.ts';
import { HttpKubeClient } from '../../../kernel/kube/index.ts';
import { nopLogger } from '../../../kernel/log/log.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES, type RuleIndex } from '../../../rename/index.ts';
import { startKubeApiProxy } from '../kube-api.ts';
import { rewriterMetrics } from '../metrics.ts';
import type { ProxyServer } from '../serve.ts';
import { Upstream } from '../upstream.ts';

export interface Cluster extends TestCluster {
  index: RuleIndex;
  proxy: ProxyServer;
  /** Base URL of the proxy. */
  proxyUrl: string;
  /** Through the proxy: speaks kubevirt.io. */
  viaProxy: HttpKubeClient;
}

export async function startCluster(prefix: string): Promise<Cluster> {
  const c = await testCluster(prefix, { userAgent: 'kubevirt-ts/rewriter-itest' });
  const index = buildRuleIndex(KUBEVIRT_REWRITE_RULES);
  const upstream = new Upstream({ config: c.config, keepAliveTimeout: 10 });
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
  c.onClose(async () => {
    await viaProxy.destroy();
    await proxy.close(100);
    await upstream.destroy();
  });
  return Object.assign(c, { index, proxy, proxyUrl, viaProxy });
}
