/** `virt api`: the subresource API and the admission webhooks (flags → ApiRoleOptions → runApiRole until SIGTERM). */
import { Command } from 'commander';
import { KvError } from '../lib/kernel/errors/errors.ts';
import {
  addKubeFlags,
  checkCertificates,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  pemFlag,
  pemPairFlags,
} from '../lib/kernel/kube/index.ts';
import type { KubeFlagValues } from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { VIRTUALIZATION_API_PROXY_CN, WEBHOOK_CLIENT_CN } from '../lib/apiserver/auth/index.ts';
import { runApiRole, type ApiRoleOptions } from '../lib/apiserver/role.ts';
import {
  addMetricsTlsFlags,
  ipAddress,
  metricsTls,
  namesOption,
  parsed,
  port,
  verbosityOption,
  type MetricsTlsFlags,
} from './flags.ts';

/** The module's own service accounts in Deckhouse (KubeVirt's, renamed by the fork). */
const OWN_SERVICE_ACCOUNTS = ['controller', 'handler', 'apiserver'].map(
  (c) => `system:serviceaccount:d8-virtualization:kubevirt-internal-virtualization-${c}`,
);
/** virt-handler's among them (KubeVirt's HandlerServiceAccountName, renamed by the fork). */
const HANDLER_SERVICE_ACCOUNTS = [
  'system:serviceaccount:d8-virtualization:kubevirt-internal-virtualization-handler',
];

interface ApiFlags extends KubeFlagValues, MetricsTlsFlags {
  port: number;
  listenAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  clientCaAllowedNames: string[];
  webhookClientCaFile?: string;
  webhookClientAllowedNames: string[];
  consoleServerPort: number;
  handlerCaFile?: string;
  handlerClientCertFile?: string;
  handlerClientKeyFile?: string;
  handlerServerName?: string;
  ownServiceAccounts: string[];
  handlerServiceAccounts: string[];
  namespace: string;
  healthPort: number;
  verbosity: number;
}

const required = (flag: string, v: string | undefined): string => {
  if (v === undefined || v === '') throw new KvError('KV_ERR_CONFIG', `${flag} is required`);
  return v;
};

/** The fork's VIRT_API_RATE_LIMITER_QPS / _BURST, over --kube-api-qps / --kube-api-burst when set. */
export function rateLimitFromEnv(env: NodeJS.ProcessEnv, f: KubeFlagValues): KubeFlagValues {
  const read = (name: string, min: number, whole: boolean): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || (whole && !Number.isInteger(n)))
      throw new KvError('KV_ERR_CONFIG', `${name}=${v}: expected a ${whole ? 'whole ' : ''}number >= ${min}`);
    return n;
  };
  const qps = read('VIRT_API_RATE_LIMITER_QPS', 0, false);
  const burst = read('VIRT_API_RATE_LIMITER_BURST', 1, true);
  return {
    ...f,
    ...(qps !== undefined && { kubeApiQps: qps }),
    ...(burst !== undefined && { kubeApiBurst: burst }),
  };
}

/**
 * Who may send identity headers from --client-ca-file, and who may call the webhooks: the webhook client CA
 * is the --client-ca-file one unless given (Deckhouse's virtualization-ca signs the module's certificates).
 */
function trustedClients(f: ApiFlags): Pick<ApiRoleOptions, 'clientCa' | 'webhookClients'> {
  const clientCa = pemFlag('--client-ca-file', f.clientCaFile, checkCertificates);
  const webhookCa = pemFlag('--webhook-client-ca-file', f.webhookClientCaFile, checkCertificates) ?? clientCa;
  if (webhookCa === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      '--webhook-client-ca-file is required without --client-ca-file: the admission webhooks answer only ' +
        'callers with a client certificate from that CA',
    );
  return {
    ...(clientCa !== undefined && {
      clientCa: { caPem: clientCa, allowedNames: f.clientCaAllowedNames },
    }),
    webhookClients: { caPem: webhookCa, allowedNames: f.webhookClientAllowedNames },
  };
}

function roleOptions(f: ApiFlags): Omit<ApiRoleOptions, 'log'> {
  const host = ipAddress('--listen-address', f.listenAddress);
  const serving = {
    cert: required('--tls-cert-file', f.tlsCertFile),
    key: required('--tls-private-key-file', f.tlsPrivateKeyFile),
  };
  const tls = pemPairFlags(
    { flag: '--tls-cert-file', file: serving.cert },
    { flag: '--tls-private-key-file', file: serving.key },
  );
  const handlerClient = {
    cert: required('--handler-client-cert-file', f.handlerClientCertFile),
    key: required('--handler-client-key-file', f.handlerClientKeyFile),
    ca: required('--handler-ca-file', f.handlerCaFile),
  };
  const client = pemPairFlags(
    { flag: '--handler-client-cert-file', file: handlerClient.cert },
    { flag: '--handler-client-key-file', file: handlerClient.key },
  );
  const handlerCa = pemFlag('--handler-ca-file', handlerClient.ca, checkCertificates);
  return {
    config: loadRestConfig(
      kubeFlagsToConfigOptions(rateLimitFromEnv(process.env, f), { userAgent: 'kubevirt-ts/api' }),
    ),
    port: f.port,
    host,
    tls,
    ...trustedClients(f),
    handlers: {
      port: f.consoleServerPort,
      tls: {
        ca: Buffer.from(handlerCa ?? ''),
        cert: Buffer.from(client.cert),
        key: Buffer.from(client.key),
        ...(f.handlerServerName !== undefined && { serverName: f.handlerServerName }),
      },
    },
    tlsFiles: {
      serving,
      handlerClient,
      ...(f.clientCaFile !== undefined && { clientCa: f.clientCaFile }),
      ...((f.webhookClientCaFile ?? f.clientCaFile) !== undefined && {
        webhookClientCa: f.webhookClientCaFile ?? f.clientCaFile,
      }),
    },
    ownServiceAccounts: f.ownServiceAccounts,
    handlerServiceAccounts: f.handlerServiceAccounts,
    namespace: f.namespace,
    healthPort: f.healthPort,
    metricsTls: metricsTls(f),
  };
}

export function apiCommand(): Command {
  const cmd = new Command('api').description(
    'aggregated API for subresources.kubevirt.io and the admission webhooks',
  );
  addMetricsTlsFlags(addKubeFlags(cmd))
    .addOption(parsed('--port <port>', 'TLS port of the subresource API and the webhooks', port, 8443))
    .option('--listen-address <ip>', 'address the TLS port listens on', '0.0.0.0')
    .option('--tls-cert-file <file>', 'serving certificate (PEM)')
    .option('--tls-private-key-file <file>', 'serving key (PEM)')
    .option(
      '--client-ca-file <file>',
      "the Deckhouse virtualization-api's CA: its client certificates with an allowed name may send X-Remote-* headers (PEM)",
    )
    .addOption(
      namesOption(
        '--client-ca-allowed-names <names>',
        'comma-separated common names a --client-ca-file certificate must carry (never empty)',
        [VIRTUALIZATION_API_PROXY_CN],
      ),
    )
    .option(
      '--webhook-client-ca-file <file>',
      "the CA of the admission webhooks' callers' client certificates (PEM; default: --client-ca-file)",
    )
    .addOption(
      namesOption(
        '--webhook-client-allowed-names <names>',
        "comma-separated common names a webhook caller's certificate must carry (the rewriter's webhook proxy)",
        [WEBHOOK_CLIENT_CN],
      ),
    )
    .addOption(parsed('--console-server-port <port>', "the handlers' REST server port", port, 4101))
    .option('--handler-ca-file <file>', "the CA that signs the handlers' REST server certificates (PEM)")
    .option('--handler-client-cert-file <file>', 'the client certificate the api shows the handlers (PEM)')
    .option('--handler-client-key-file <file>', 'its key (PEM)')
    .option(
      '--handler-server-name <cn>',
      "the common name the handlers' certificates carry (default: check the node address instead)",
    )
    .addOption(
      namesOption(
        '--own-service-accounts <users>',
        "comma-separated users whose VMI status changes are kept (the module's own service accounts)",
        OWN_SERVICE_ACCOUNTS,
      ),
    )
    .addOption(
      namesOption(
        '--handler-service-accounts <users>',
        "comma-separated users that are virt-handler's (own ones too): NodeRestriction keeps each to its node's VMIs",
        HANDLER_SERVICE_ACCOUNTS,
      ),
    )
    .option(
      '--namespace <ns>',
      'install namespace: its KubeVirt CR gives the feature gates',
      'd8-virtualization',
    )
    .addOption(parsed('--health-port <port>', '/metrics, /healthz, /readyz port', port, 8186))
    .addOption(verbosityOption())
    .action(async (flags: ApiFlags) => {
      const log = createLogger({ component: 'virt-api', verbosity: flags.verbosity });
      // Options are read inside main, so a bad flag or file ends as one 'main failed' line.
      await runUntilSignal((signal) => runApiRole({ ...roleOptions(flags), log }, signal), { log });
    });
  return cmd;
}
