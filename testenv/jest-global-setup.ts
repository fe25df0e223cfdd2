/**
 * Jest global setup of the integration project: with KUBECONFIG already set, the tests use that cluster
 * and nothing is started; otherwise one control plane is started for the whole run in a temp dir, and
 * KUBECONFIG / KV_TESTENV_STATE are set here so jest's workers inherit them.
 * KV_TESTENV_KEEP=1 keeps the temp dir (logs, etcd data) after the run.
 */
import { createLogger } from '../lib/kernel/log/log.ts';
import { startControlPlane } from './controlplane.ts';
import { KUBECONFIG_ENV, STATE_ENV } from './handle.ts';
import { setStarted } from './jest-started.ts';

export default async function globalSetup(): Promise<void> {
  const log = createLogger({ component: 'testenv' });
  const external = process.env[KUBECONFIG_ENV];
  if (external !== undefined && external !== '') {
    log.info('using the cluster from KUBECONFIG; starting nothing', { kubeconfig: external });
    return;
  }
  const cp = await startControlPlane({ log, keep: process.env['KV_TESTENV_KEEP'] === '1' });
  process.env[KUBECONFIG_ENV] = cp.kubeconfigPath;
  process.env[STATE_ENV] = cp.statePath;
  setStarted(cp);
  log.info('integration tests use the local control plane', { dir: cp.dir, kubeconfig: cp.kubeconfigPath });
}
