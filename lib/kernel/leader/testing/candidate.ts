/**
 * A leader-election candidate process for election.itest.ts, run as
 *   node --import tsx lib/kernel/leader/testing/candidate.ts --namespace NS --name LOCK --identity ID
 *        [--lease-ms 3000 --renew-ms 2000 --retry-ms 500]
 * against the cluster in KUBECONFIG. One JSON line per event on stdout:
 *   {"event":"leading"|"stopped"|"new-leader","identity":ID,"leader"?:HOLDER}
 * Logs go to stderr. SIGTERM/SIGINT stop it gracefully (the lease is released); exit 0 after that.
 */
import { parseArgs } from 'node:util';
import { HttpKubeClient } from '../../kube/client.ts';
import { loadRestConfig } from '../../kube/config.ts';
import { createLogger } from '../../log/log.ts';
import { runUntilSignal } from '../../runtime/shutdown.ts';
import { LeaderElector } from '../election.ts';

const { values } = parseArgs({
  options: {
    namespace: { type: 'string' },
    name: { type: 'string' },
    identity: { type: 'string' },
    'lease-ms': { type: 'string', default: '3000' },
    'renew-ms': { type: 'string', default: '2000' },
    'retry-ms': { type: 'string', default: '500' },
  },
});
const { namespace, name, identity } = values;
if (namespace === undefined || name === undefined || identity === undefined) {
  process.stderr.write('usage: candidate.ts --namespace NS --name LOCK --identity ID\n');
  process.exit(2);
}

const emit = (event: string, extra: Record<string, unknown> = {}): void => {
  process.stdout.write(JSON.stringify({ event, identity, ...extra }) + '\n');
};

const log = createLogger({ component: 'candidate' }).with({ identity });
const elector = new LeaderElector({
  client: new HttpKubeClient(loadRestConfig()),
  namespace,
  name,
  identity,
  leaseDurationMs: Number(values['lease-ms']),
  renewDeadlineMs: Number(values['renew-ms']),
  retryPeriodMs: Number(values['retry-ms']),
  log,
  onStartedLeading: (): void => {
    emit('leading');
  },
  onStoppedLeading: (): void => {
    emit('stopped');
  },
  onNewLeader: (leader): void => {
    emit('new-leader', { leader });
  },
});

await runUntilSignal((signal) => elector.run(signal), { log, graceMs: 10_000 });
