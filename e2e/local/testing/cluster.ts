/**
 * The local cluster for a test file: the one in KV_LOCAL_CLUSTER_DIR when set, or the default stack when
 * it is already up (both are left running, but the host roles `./dev run` started are stopped: the tests run
 * their own), otherwise one brought up here and taken down by release(). release() fails the file when it left
 * a cluster-scoped test object behind (cluster-leftovers.ts).
 */
import { createLogger } from '../../../lib/kernel/log/log.ts';
import { down, status, up } from '../cluster.ts';
import { stopVirtStack } from '../virt-stack.ts';
import { virtClients } from '../virt.ts';
import { Api } from '../kube.ts';
import { defaultStackDir } from '../layout.ts';
import { checkLeftovers, listClusterObjects } from './cluster-leftovers.ts';

export const CLUSTER_DIR_ENV = 'KV_LOCAL_CLUSTER_DIR';

export interface TestCluster {
  dir: string;
  kubeconfig: string;
  api: Api;
  /**
   * Fails when a cluster-scoped test object made since useLocalCluster is still there; takes the cluster down
   * when this file brought it up.
   */
  release(): Promise<void>;
}

export async function useLocalCluster(): Promise<TestCluster> {
  const given = process.env[CLUSTER_DIR_ENV];
  const dir = given !== undefined && given !== '' ? given : defaultStackDir();
  const log = createLogger({ component: 'local-cluster-test' });
  const ours = (await status(dir))?.ready !== true;
  // An up that fails half-way is taken down again when this file began it, so the next file starts clean.
  const r = await up({ dir, log }).catch(async (err: unknown) => {
    if (ours) {
      await down({ dir, log }).catch((e: unknown) => {
        log.error('down after a failed up', { err: String(e) });
      });
    }
    throw err;
  });
  // The tests run their own controller and handler: those `./dev run` left would act on the same VMs.
  // Their api goes with them: an APIService nobody serves would hold up the deletion of the tests' namespaces.
  const c = virtClients(r.kubeconfig, 'kubevirt-ts/local-test');
  const stopped = await stopVirtStack(c, dir).finally(() => c.close());
  if (stopped.length > 0) log.warning('stopped the host roles of ./dev run for the tests', { stopped });
  const api = await Api.fromKubeconfig(r.kubeconfig);
  const before = await listClusterObjects(api);
  return {
    dir,
    kubeconfig: r.kubeconfig,
    api,
    release: async () => {
      const left = await checkLeftovers(api, before, 60_000).then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
      if (ours) await down({ dir, log });
      if (left !== undefined) throw left;
    },
  };
}
