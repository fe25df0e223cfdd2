/**
 * One controller replica as its own process, for the HA test: `node --import tsx controller-process.ts <json>`
 * with the JSON holding kubeconfig, lease and watch namespace. Runs the role (leader election included)
 * until SIGTERM, logging JSON lines on stderr.
 */
import { loadRestConfig } from '../../kernel/kube/index.ts';
import { createLogger } from '../../kernel/log/log.ts';
import { runUntilSignal } from '../../kernel/runtime/shutdown.ts';
import { runControllerRole } from '../role.ts';

interface Args {
  kubeconfig: string;
  namespace: string;
  workers: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const log = createLogger({ component: 'virt-controller', verbosity: 2 });
await runUntilSignal(
  (signal) =>
    runControllerRole(
      {
        config: loadRestConfig({ kubeconfig: args.kubeconfig, inCluster: false, qps: 0 }),
        leaseNamespace: args.namespace,
        watchNamespace: args.namespace,
        leaderElect: true,
        workers: args.workers,
        healthPort: 0,
        healthHost: '127.0.0.1',
        launcher: { image: 'registry.example/kubevirt-ts/virt:ha' },
        lease: { durationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 1000 },
        log,
      },
      signal,
    ),
  { log, graceMs: 10_000 },
);
