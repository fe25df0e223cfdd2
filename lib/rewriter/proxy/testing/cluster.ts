/**
 * Integration-test support for the proxy: the test cluster (testenv/cluster.ts: CRDs, a fresh namespace, a
 * direct client), the kube-api proxy in this process on TCP and on a unix socket, a ServiceAccount of the
 * namespace bound to cluster-admin with a token (TokenRequest), and a client speaking kubevirt.io through the
 * proxy's TCP port with that token, as a client of the proxy must.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { testCluster, type TestCluster } from '../../../../testenv/cluster.ts';
import { HttpKubeClient } from '../../../kernel/kube/index.ts';
import { nopLogger } from '../../../kernel/log/log.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES, type RuleIndex } from '../../../rename/index.ts';
import { startKubeApiProxy } from '../kube-api.ts';
import { rewriterMetrics } from '../metrics.ts';
import type { ProxyServer } from '../serve.ts';
import { Upstream } from '../upstream.ts';
import { clusterAdminToken } from './service-account.ts';

export interface Cluster extends TestCluster {
  index: RuleIndex;
  proxy: ProxyServer;
  /** Base URL of the proxy's TCP port. */
  proxyUrl: string;
  /** The proxy's unix socket: requests without credentials run as the rewriter (the admin here). */
  socketPath: string;
  /** The ServiceAccount's token and user name. */
  token: string;
  user: string;
  /** Through the proxy's TCP port with the ServiceAccount's token: speaks kubevirt.io. */
  viaProxy: HttpKubeClient;
}

export async function startCluster(prefix: string): Promise<Cluster> {
  const c = await testCluster(prefix, { userAgent: 'kubevirt-ts/rewriter-itest' });
  const index = buildRuleIndex(KUBEVIRT_REWRITE_RULES);
  const upstream = new Upstream({ config: c.config, keepAliveTimeout: 10 });
  const dir = await mkdtemp(join(tmpdir(), 'kv-rewriter-itest-'));
  const common = {
    index,
    upstream,
    metrics: rewriterMetrics(new Registry()),
    log: nopLogger,
    maxBodyBytes: 32 << 20,
  };
  const proxy = await startKubeApiProxy({
    ...common,
    endpoint: { host: '127.0.0.1', port: 0 },
    credentialLess: 'refuse',
  });
  const socketPath = join(dir, 'kube-api.sock');
  const socketProxy = await startKubeApiProxy({
    ...common,
    endpoint: { socket: { path: socketPath } },
    credentialLess: 'lend',
  });
  const proxyUrl = `http://127.0.0.1:${proxy.port}`;
  const admin = await clusterAdminToken(c.direct, c.ns, 'rewriter-client');
  c.onClose(() => admin.remove());
  const { token, user } = admin;
  const viaProxy = new HttpKubeClient(
    { server: proxyUrl, token, qps: 0, burst: 1, userAgent: 'kubevirt-ts/rewriter-itest' },
    { keepAliveTimeout: 10 },
  );
  c.onClose(async () => {
    await viaProxy.destroy();
    await Promise.all([proxy.close(100), socketProxy.close(100)]);
    await upstream.destroy();
    await rm(dir, { recursive: true, force: true });
  });
  return Object.assign(c, { index, proxy, proxyUrl, socketPath, token, user, viaProxy });
}
