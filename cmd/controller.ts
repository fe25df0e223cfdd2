/** `virt controller`: VM → VMI → launcher Pod (flags → ControllerRoleOptions → runControllerRole until SIGTERM). */
import { Command, InvalidArgumentError, Option } from 'commander';
import { addKubeFlags, kubeFlagsToConfigOptions, loadRestConfig } from '../lib/kernel/kube/index.ts';
import type { KubeFlagValues } from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { runControllerRole, type ControllerRoleOptions } from '../lib/controller/role.ts';

interface ControllerFlags extends KubeFlagValues {
  namespace: string;
  watchNamespace?: string;
  workers: number;
  leaderElect: boolean;
  healthPort: number;
  launcherImage: string;
  allowEmulation: boolean;
  rewrite: boolean;
  verbosity: string;
}

/** Client limits of this role unless --kube-api-qps/--kube-api-burst say otherwise (KubeVirt's 5/10 was far too low). */
const CONTROLLER_QPS = 200;
const CONTROLLER_BURST = 400;

const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number >= 1');
  return n;
};
const port = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port (0 picks one)');
  return n;
};
const bool = (v: string): boolean => {
  if (v !== 'true' && v !== 'false') throw new InvalidArgumentError('expected true or false');
  return v === 'true';
};

function roleOptions(cmd: Command, f: ControllerFlags): Omit<ControllerRoleOptions, 'log'> {
  const defaulted = (name: string): boolean => cmd.getOptionValueSource(name) === 'default';
  const config = loadRestConfig(
    kubeFlagsToConfigOptions(
      {
        ...f,
        kubeApiQps: defaulted('kubeApiQps') ? CONTROLLER_QPS : (f.kubeApiQps ?? CONTROLLER_QPS),
        kubeApiBurst: defaulted('kubeApiBurst') ? CONTROLLER_BURST : (f.kubeApiBurst ?? CONTROLLER_BURST),
      },
      { userAgent: 'kubevirt-ts/controller' },
    ),
  );
  return {
    config,
    leaseNamespace: f.namespace,
    leaderElect: f.leaderElect,
    workers: f.workers,
    healthPort: f.healthPort,
    launcher: { image: f.launcherImage, allowEmulation: f.allowEmulation },
    rewrite: f.rewrite,
    ...(f.watchNamespace !== undefined && { watchNamespace: f.watchNamespace }),
  };
}

export function controllerCommand(): Command {
  const cmd = new Command('controller').description(
    'VM → VMI → launcher Pod, status, run strategies, hotplug requests',
  );
  addKubeFlags(cmd)
    .option('--namespace <ns>', 'namespace of the leader Lease', 'd8-virtualization')
    .option('--watch-namespace <ns>', 'watch only this namespace (default: all)')
    .addOption(
      new Option('--workers <n>', 'reconcile workers per controller').argParser(positiveInt).default(10),
    )
    .addOption(
      new Option('--leader-elect <bool>', 'use a Lease to elect one active replica')
        .argParser(bool)
        .default(true),
    )
    .addOption(
      new Option('--health-port <port>', '/metrics, /healthz and /readyz port').argParser(port).default(8443),
    )
    .requiredOption('--launcher-image <ref>', 'image of launcher Pods (holds `virt launcher`)')
    .addOption(
      new Option('--allow-emulation <bool>', 'let launchers fall back to TCG (no kvm device requested)')
        .argParser(bool)
        .default(false),
    )
    .addOption(
      new Option('--rewrite <bool>', 'speak kubevirt.io through the rewriter rules')
        .argParser(bool)
        .default(true),
    )
    .option('-v, --verbosity <n>', 'log verbosity (debug levels above 2)', '2')
    .action(async (flags: ControllerFlags) => {
      const log = createLogger({ component: 'virt-controller', verbosity: Number(flags.verbosity) });
      await runUntilSignal((signal) => runControllerRole({ ...roleOptions(cmd, flags), log }, signal), {
        log,
      });
    });
  return cmd;
}
