/** `virt operator`: installs the other roles from the KubeVirt resource (flags → OperatorRoleOptions → runOperatorRole). */
import { Command, Option } from 'commander';
import { KvError } from '../lib/kernel/errors/errors.ts';
import {
  addKubeFlags,
  checkCertificates,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  pemFlag,
  type KubeFlagValues,
} from '../lib/kernel/kube/index.ts';
import { createLogger, type Logger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { APISERVER_WEBHOOK_CLIENT_CN } from '../lib/kubevirt/webhooks.ts';
import type { InstallMode } from '../lib/operator/config/install-config.ts';
import { runOperatorRole, type OperatorRoleOptions } from '../lib/operator/role.ts';
import { PORTS } from '../lib/operator/generate/layout.ts';
import {
  addMetricsTlsFlags,
  bool,
  metricsTlsOnceIssued,
  namesOption,
  parsed,
  port,
  verbosityOption,
  type MetricsTlsFlags,
} from './flags.ts';

interface OperatorFlags extends KubeFlagValues, MetricsTlsFlags {
  namespace: string;
  image?: string;
  launcherImage?: string;
  installMode: InstallMode;
  leaderElect: boolean;
  healthPort: number;
  webhookPort: number;
  webhookAddress?: string;
  webhookClientCaFile?: string;
  webhookClientAllowedNames: string[];
  verbosity: number;
}

function roleOptions(f: OperatorFlags, log: Logger): Omit<OperatorRoleOptions, 'log'> {
  const image = f.image ?? process.env['VIRT_OPERATOR_IMAGE'];
  if (image === undefined || image === '')
    throw new KvError(
      'KV_ERR_CONFIG',
      '--image (or $VIRT_OPERATOR_IMAGE) must name the image every role runs from',
    );
  const launcherImage = f.launcherImage ?? process.env['VIRT_LAUNCHER_IMAGE'];
  const callerCa = pemFlag('--webhook-client-ca-file', f.webhookClientCaFile, checkCertificates);
  return {
    config: loadRestConfig(kubeFlagsToConfigOptions(f, { userAgent: 'kubevirt-ts/operator' })),
    env: {
      namespace: f.namespace,
      image,
      mode: f.installMode,
      ...(launcherImage !== undefined && launcherImage !== '' && { launcherImage }),
    },
    leaderElect: f.leaderElect,
    healthPort: f.healthPort,
    // Its certificate is the one it issues: the first replica starts before the Secret exists.
    metricsTls: metricsTlsOnceIssued(f, log),
    webhook: {
      port: f.webhookPort,
      ...(f.webhookAddress !== undefined && { host: f.webhookAddress }),
      ...(callerCa !== undefined && { callers: { ca: callerCa, allowedNames: f.webhookClientAllowedNames } }),
    },
  };
}

export function operatorCommand(): Command {
  const cmd = new Command('operator').description(
    'installs, configures, rolls out and removes the other roles from the KubeVirt resource',
  );
  addMetricsTlsFlags(addKubeFlags(cmd))
    .option(
      '--namespace <ns>',
      'install namespace: its KubeVirt resource is installed, everything namespaced goes there',
      process.env['WATCH_NAMESPACE'] ?? 'd8-virtualization',
    )
    .option('--image <ref>', 'the image every role runs from (default: $VIRT_OPERATOR_IMAGE)')
    .option(
      '--launcher-image <ref>',
      "launcher Pods' image when not the same (default: $VIRT_LAUNCHER_IMAGE)",
    )
    .addOption(
      new Option(
        '--install-mode <mode>',
        'kubevirt: an APIService for subresources.kubevirt.io; deckhouse: none, the api trusts the virtualization CA',
      )
        .choices(['kubevirt', 'deckhouse'])
        .default('deckhouse'),
    )
    .addOption(parsed('--leader-elect <bool>', 'use a Lease to elect one active replica', bool, true))
    .addOption(parsed('--health-port <port>', '/metrics, /healthz, /readyz port', port, PORTS.operatorHealth))
    .addOption(
      parsed('--webhook-port <port>', "the KubeVirt resource's webhooks (TLS)", port, PORTS.operatorWebhook),
    )
    .option('--webhook-address <ip>', 'address the webhooks listen on (default: all)')
    .option(
      '--webhook-client-ca-file <file>',
      "the CA (PEM) of kube-apiserver's webhook client certificate; without it any caller is answered",
    )
    .addOption(
      namesOption(
        '--webhook-client-allowed-names <names>',
        "comma-separated common names a webhook caller's certificate must carry",
        [APISERVER_WEBHOOK_CLIENT_CN],
      ),
    )
    .addOption(verbosityOption())
    .action(async (flags: OperatorFlags) => {
      const log = createLogger({ component: 'virt-operator', verbosity: flags.verbosity });
      // Options are read inside main, so a bad flag or file ends as one 'main failed' line.
      await runUntilSignal((signal) => runOperatorRole({ ...roleOptions(flags, log), log }, signal), { log });
    });
  return cmd;
}
