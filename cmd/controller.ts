/** `virt controller`: VM → VMI → launcher Pod (flags → ControllerRoleOptions → runControllerRole until SIGTERM). */
import { Command } from 'commander';
import { addKubeFlags, kubeFlagsToConfigOptions, loadRestConfig } from '../lib/kernel/kube/index.ts';
import type { KubeFlagValues } from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { runControllerRole, type ControllerRoleOptions } from '../lib/controller/role.ts';
import { IMAGE_VIRTIOFSD } from '../lib/controller/vmi/virtiofs-containers.ts';
import {
  addMetricsTlsFlags,
  bool,
  intIn,
  metricsTls,
  parsed as opt,
  port,
  verbosityOption,
  type MetricsTlsFlags,
} from './flags.ts';

interface ControllerFlags extends KubeFlagValues, MetricsTlsFlags {
  namespace: string;
  watchNamespace?: string;
  workers: number;
  leaderElect: boolean;
  healthPort: number;
  launcherImage: string;
  virtiofsd: string;
  allowEmulation: boolean;
  rewrite: boolean;
  evacuation: boolean;
  verbosity: number;
}

const CONTROLLER_QPS = 1000;
const CONTROLLER_BURST = 2000;

function roleOptions(f: ControllerFlags): Omit<ControllerRoleOptions, 'log'> {
  const opts = kubeFlagsToConfigOptions(f, { userAgent: 'kubevirt-ts/controller' });
  return {
    config: loadRestConfig(opts),
    leaseNamespace: f.namespace,
    leaderElect: f.leaderElect,
    workers: f.workers,
    healthPort: f.healthPort,
    metricsTls: metricsTls(f),
    launcher: {
      image: f.launcherImage,
      allowEmulation: f.allowEmulation,
      virtiofsd: f.virtiofsd === '' ? undefined : f.virtiofsd,
    },
    rewrite: f.rewrite,
    evacuation: f.evacuation,
    ...(f.watchNamespace !== undefined && { watchNamespace: f.watchNamespace }),
  };
}

export function controllerCommand(): Command {
  const cmd = new Command('controller').description(
    'VM → VMI → launcher Pod, status, run strategies, hotplug requests',
  );
  addMetricsTlsFlags(addKubeFlags(cmd));
  // This role's own client limits (KubeVirt's 5/10 default is the cautionary tale).
  cmd.options.find((o) => o.long === '--kube-api-qps')?.default(CONTROLLER_QPS);
  cmd.options.find((o) => o.long === '--kube-api-burst')?.default(CONTROLLER_BURST);
  cmd
    .option('--namespace <ns>', 'namespace of the leader Lease', 'd8-virtualization')
    .option('--watch-namespace <ns>', 'watch only this namespace (default: all)')
    .addOption(opt('--workers <n>', 'reconcile workers per controller', intIn(1, 1000), 10))
    .addOption(opt('--leader-elect <bool>', 'use a Lease to elect one active replica', bool, true))
    .addOption(opt('--health-port <port>', '/metrics, /healthz, /readyz port', port, 8443))
    .requiredOption('--launcher-image <ref>', 'image of launcher Pods (holds `virt launcher`)')
    .option(
      '--virtiofsd <path>',
      "the launcher image's unprivileged virtiofsd, run per VMI filesystem ('' when it has none: filesystems are refused)",
      IMAGE_VIRTIOFSD,
    )
    .addOption(
      opt('--allow-emulation <bool>', 'launchers may use TCG (no kvm device requested)', bool, false),
    )
    .addOption(opt('--rewrite <bool>', 'speak kubevirt.io through the rewriter rules', bool, true))
    .addOption(
      opt(
        '--evacuation <bool>',
        "migrate the VMIs a node drain evacuates (off where Deckhouse's controller evacuates them)",
        bool,
        true,
      ),
    )
    .addOption(verbosityOption())
    .action(async (flags: ControllerFlags) => {
      const log = createLogger({ component: 'virt-controller', verbosity: flags.verbosity });
      await runUntilSignal((signal) => runControllerRole({ ...roleOptions(flags), log }, signal), {
        log,
      });
    });
  return cmd;
}
