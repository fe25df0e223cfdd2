/**
 * Jest global teardown of the integration project: the control plane testenv started, then the local cluster a
 * test file left up for the next one when the run shares it (KV_LOCAL_CLUSTER_SHARE, cluster.ts). A run that does
 * not share it (`npm test` runs the files that need no local cluster beside the ones that do) leaves it alone.
 */
import { createLogger } from '../../../lib/kernel/log/log.ts';
import testenvTeardown from '../../../testenv/jest-global-teardown.ts';
import { downIfKept, testStackDir } from './cluster.ts';

export default async function globalTeardown(): Promise<void> {
  await testenvTeardown();
  if (process.env['KV_LOCAL_CLUSTER_SHARE'] !== '1') return;
  await downIfKept(testStackDir(), createLogger({ component: 'local-cluster-test' }));
}
