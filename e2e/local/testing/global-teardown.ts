/**
 * Jest global teardown of the integration project: the control plane testenv started, then the local cluster a
 * test file left up for the next one when the run shares it (KV_LOCAL_CLUSTER_SHARE, cluster.ts).
 */
import { createLogger } from '../../../lib/kernel/log/log.ts';
import testenvTeardown from '../../../testenv/jest-global-teardown.ts';
import { downIfKept, testStackDir } from './cluster.ts';

export default async function globalTeardown(): Promise<void> {
  await testenvTeardown();
  await downIfKept(testStackDir(), createLogger({ component: 'local-cluster-test' }));
}
