/**
 * The one cluster fixture of the integration tests: the real API server from KUBECONFIG with the internal CRDs
 * installed, a fresh namespace, and a client that talks to it directly (it sees the stored, internal names).
 * Fixtures of a role build on it (the rewriter's proxy, the controllers) and hand their own cleanup to `close`.
 */
import { isNotFound } from '../lib/kernel/errors/errors.ts';
import { HttpKubeClient, loadRestConfig, NAMESPACES, type RestConfig } from '../lib/kernel/kube/index.ts';
import { installCrds } from '../lib/operator/apply/install-crds.ts';
import { newNamespaceName } from './handle.ts';

export interface TestCluster {
  readonly ns: string;
  readonly config: RestConfig;
  /** Straight to the API server: sees internal names. */
  readonly direct: HttpKubeClient;
  /** Runs cleanup first when the cluster closes (the last added runs first). */
  onClose(cleanup: () => Promise<void>): void;
  /** Runs the cleanups, deletes the namespace, closes the client. */
  close(): Promise<void>;
}

export interface TestClusterOptions {
  readonly userAgent: string;
  /** Client-side QPS towards the API server (default 0: no limit). */
  readonly qps?: number;
}

export async function testCluster(prefix: string, o: TestClusterOptions): Promise<TestCluster> {
  const config = loadRestConfig({ inCluster: false, userAgent: o.userAgent, qps: o.qps ?? 0 });
  const direct = new HttpKubeClient(config, { keepAliveTimeout: 10 });
  await installCrds(direct);
  const ns = newNamespaceName(prefix);
  await direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cleanups: (() => Promise<void>)[] = [];
  return {
    ns,
    config,
    direct,
    onClose: (cleanup): void => {
      cleanups.unshift(cleanup);
    },
    close: async (): Promise<void> => {
      for (const c of cleanups) await c();
      await direct.delete(NAMESPACES, ns).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      await direct.destroy();
    },
  };
}
