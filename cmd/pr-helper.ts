/** `virt pr-helper`: qemu-pr-helper supervised on its socket (flags → PrHelperRoleOptions → runPrHelperRole). */
import { Command } from 'commander';
import {
  addKubeFlags,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  type KubeFlagValues,
} from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import {
  DEFAULT_PR_HELPER_BINARY,
  DEFAULT_PR_HELPER_SOCKET,
  runPrHelperRole,
  type PrHelperRoleOptions,
} from '../lib/pr-helper/role.ts';
import {
  addMetricsTlsFlags,
  intIn,
  metricsTls,
  parsed,
  port,
  verbosityOption,
  type MetricsTlsFlags,
} from './flags.ts';

interface PrHelperFlags extends KubeFlagValues, MetricsTlsFlags {
  socket: string;
  helperBinary: string;
  helperLog?: string;
  healthPort: number;
  healthHost?: string;
  stopGraceSeconds: number;
  verbosity: number;
}

/** The cluster is asked who may read /metrics only with the metrics TLS flags: else no kubeconfig is read. */
function roleOptions(f: PrHelperFlags): Omit<PrHelperRoleOptions, 'log'> {
  const tls = metricsTls(f);
  const secureMetrics = tls && {
    tls,
    config: loadRestConfig(kubeFlagsToConfigOptions(f, { userAgent: 'kubevirt-ts/pr-helper' })),
  };
  return {
    secureMetrics,
    socket: f.socket,
    binary: f.helperBinary,
    healthPort: f.healthPort,
    graceMs: f.stopGraceSeconds * 1000,
    ...(f.helperLog !== undefined && { helperLog: f.helperLog }),
    ...(f.healthHost !== undefined && { healthHost: f.healthHost }),
  };
}

export function prHelperCommand(): Command {
  const cmd = new Command('pr-helper').description(
    'supervise qemu-pr-helper for SCSI persistent reservations',
  );
  return addMetricsTlsFlags(addKubeFlags(cmd))
    .option(
      '--socket <path>',
      'the socket qemu-pr-helper listens on (its directory is made 0755)',
      DEFAULT_PR_HELPER_SOCKET,
    )
    .option('--helper-binary <path>', 'the qemu-pr-helper binary', DEFAULT_PR_HELPER_BINARY)
    .option('--helper-log <file>', "append qemu-pr-helper's output to this file (default: our stderr)")
    .addOption(parsed('--health-port <port>', '/metrics, /healthz, /readyz port', port, 8187))
    .option('--health-host <addr>', 'address of the health server (default: all)')
    .addOption(
      parsed(
        '--stop-grace-seconds <n>',
        'time qemu-pr-helper has after SIGTERM before SIGKILL',
        intIn(1, 300),
        5,
      ),
    )
    .addOption(verbosityOption())
    .action(async (flags: PrHelperFlags) => {
      const log = createLogger({ component: 'pr-helper', verbosity: flags.verbosity });
      await runUntilSignal((signal) => runPrHelperRole({ ...roleOptions(flags), log }, signal), { log });
    });
}
