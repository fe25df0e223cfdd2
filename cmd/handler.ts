/** `virt handler`: the node agent (flags → HandlerRoleOptions → runHandlerRole until SIGTERM). */
import { join } from 'node:path';
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
import { DEFAULT_CLIENT_COMMON_NAME, DEFAULT_CONSOLE_SERVER_PORT } from '../lib/handler/rest/index.ts';
import { runHandlerRole, type HandlerRoleOptions } from '../lib/handler/role.ts';
import {
  addMetricsTlsFlags,
  intIn,
  ipAddress,
  metricsTls,
  parsed,
  port,
  verbosityOption,
  type MetricsTlsFlags,
} from './flags.ts';

interface HandlerFlags extends KubeFlagValues, MetricsTlsFlags {
  nodeName?: string;
  root: string;
  kubeletPodsDir?: string;
  nodeLabellerDir?: string;
  devicePluginsDir: string;
  maxDevices: number;
  consoleServerPort: number;
  consoleServerAddress: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  clientCaFile?: string;
  clientCommonName: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  migrationAddress?: string;
  workers: number;
  namespace: string;
  port: number;
  healthHost?: string;
  verbosity: number;
}

/** The REST server's address and TLS material: all three files or none (then the server is off). */
function restOptions(f: HandlerFlags): HandlerRoleOptions['rest'] {
  const given = [f.tlsCertFile, f.tlsKeyFile, f.clientCaFile].filter((x) => x !== undefined).length;
  if (given === 0) return undefined;
  if (given < 3)
    throw new KvError(
      'KV_ERR_CONFIG',
      'the console server needs --tls-cert-file, --tls-key-file and --client-ca-file together (or none of them: no console server)',
    );
  const host = ipAddress('--console-server-address', f.consoleServerAddress);
  const { cert, key } = pemPairFlags(
    { flag: '--tls-cert-file', file: f.tlsCertFile ?? '' },
    { flag: '--tls-key-file', file: f.tlsKeyFile ?? '' },
  );
  const ca = pemFlag('--client-ca-file', f.clientCaFile, checkCertificates) ?? '';
  return {
    port: f.consoleServerPort,
    host,
    requiredClientCommonName: f.clientCommonName,
    tls: {
      ca: Buffer.from(ca),
      cert: Buffer.from(cert),
      key: Buffer.from(key),
      ...(f.clientCaFile !== undefined && { caFile: f.clientCaFile }),
      ...(f.tlsCertFile !== undefined && { certFile: f.tlsCertFile }),
      ...(f.tlsKeyFile !== undefined && { keyFile: f.tlsKeyFile }),
    },
  };
}

/** Where the migration proxies' TLS material is read from (the flags checked before). */
function migrationTlsFiles(
  f: HandlerFlags,
  rest: NonNullable<HandlerRoleOptions['rest']>['tls'],
): NonNullable<NonNullable<HandlerRoleOptions['migration']>['tlsFiles']> {
  return {
    ca: rest.caFile ?? '',
    cert: rest.certFile ?? '',
    key: rest.keyFile ?? '',
    clientCert: f.clientCertFile ?? '',
    clientKey: f.clientKeyFile ?? '',
  };
}

/**
 * The migration proxies' address and mutual TLS: the console server's CA and pair, and the handler's client pair
 * (both client files or neither: then no migration passes through this node); the files are watched for rotation.
 */
function migrationOptions(
  f: HandlerFlags,
  rest: HandlerRoleOptions['rest'],
): HandlerRoleOptions['migration'] {
  const given = [f.clientCertFile, f.clientKeyFile].filter((x) => x !== undefined).length;
  if (given === 0) return undefined;
  if (given < 2 || rest === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      "migrations need --client-cert-file and --client-key-file together, with the console server's --tls-cert-file, --tls-key-file and --client-ca-file",
    );
  const fallback = rest.host === '0.0.0.0' || rest.host === '::' ? undefined : rest.host;
  const address = f.migrationAddress ?? fallback;
  if (address === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      "--migration-address must name this node's address when the console server listens on every address",
    );
  const client = pemPairFlags(
    { flag: '--client-cert-file', file: f.clientCertFile ?? '' },
    { flag: '--client-key-file', file: f.clientKeyFile ?? '' },
  );
  const { ca, cert, key } = rest.tls;
  return {
    address: ipAddress('--migration-address', address),
    tls: { ca, cert, key, clientCert: Buffer.from(client.cert), clientKey: Buffer.from(client.key) },
    tlsFiles: migrationTlsFiles(f, rest.tls),
  };
}

function roleOptions(f: HandlerFlags, node: string): Omit<HandlerRoleOptions, 'log'> {
  const rest = restOptions(f);
  const migration = migrationOptions(f, rest);
  return {
    config: loadRestConfig(kubeFlagsToConfigOptions(f, { userAgent: 'kubevirt-ts/handler' })),
    node,
    root: f.root,
    kubeletPodsDir: f.kubeletPodsDir ?? join(f.root, 'var/lib/kubelet/pods'),
    labellerDir: f.nodeLabellerDir ?? join(f.root, 'var/lib/kubevirt-node-labeller'),
    devicePluginsDir: f.devicePluginsDir,
    maxDevices: f.maxDevices,
    ...(rest !== undefined && { rest }),
    ...(migration !== undefined && { migration }),
    workers: f.workers,
    namespace: f.namespace,
    healthPort: f.port,
    ...(f.healthHost !== undefined && { healthHost: ipAddress('--health-host', f.healthHost) }),
    metricsTls: metricsTls(f),
  };
}

export function handlerCommand(): Command {
  const cmd = new Command('handler').description(
    'per-node VMI sync with launchers, device plugins, the REST server (console, VNC, lifecycle), node labels and heartbeat',
  );
  addMetricsTlsFlags(addKubeFlags(cmd))
    .option('--node-name <name>', 'this node (default: $NODE_NAME)')
    .option('--root <dir>', 'prefix for every host path (local mode, tests)', '/')
    .option('--kubelet-pods-dir <dir>', "the kubelet's pods dir (default: <root>/var/lib/kubelet/pods)")
    .option(
      '--node-labeller-dir <dir>',
      "the node-labeller's output (default: <root>/var/lib/kubevirt-node-labeller)",
    )
    .option(
      '--device-plugins-dir <dir>',
      "where the kubelet looks for device plugins (the kubelet's own path does not move with --root)",
      '/var/lib/kubelet/device-plugins',
    )
    .addOption(parsed('--max-devices <n>', 'devices each device plugin advertises', intIn(1, 100_000), 1000))
    .addOption(
      parsed(
        '--console-server-port <port>',
        'console, VNC and lifecycle server port (TLS)',
        port,
        DEFAULT_CONSOLE_SERVER_PORT,
      ),
    )
    .option(
      '--console-server-address <ip>',
      'address the console, VNC and lifecycle server listens on (every connection must bring a client certificate)',
      '0.0.0.0',
    )
    .option(
      '--tls-cert-file <file>',
      "the console, VNC and lifecycle server's certificate (PEM; these three files are read again when they change)",
    )
    .option('--tls-key-file <file>', "the console, VNC and lifecycle server's key (PEM)")
    .option('--client-ca-file <file>', "the CA that signs the api's client certificate (PEM)")
    .option(
      '--client-common-name <cn>',
      "the common name the api's client certificate must carry ('' accepts any the CA signed)",
      DEFAULT_CLIENT_COMMON_NAME,
    )
    .option(
      '--client-cert-file <file>',
      "the handler's client certificate (PEM), shown to the target node's migration proxy; without it no migration passes through this node",
    )
    .option('--client-key-file <file>', "the handler's client key (PEM)")
    .option(
      '--migration-address <ip>',
      "where this node's migration proxies listen (default: --console-server-address when it names one)",
    )
    .addOption(parsed('--workers <n>', 'VMIs synced at once', intIn(1, 100), 3))
    .option(
      '--namespace <ns>',
      "install namespace: its KubeVirt resource's SMBIOS and VM options are followed",
      'd8-virtualization',
    )
    .addOption(parsed('--port <port>', '/metrics, /healthz, /readyz port', port, 4100))
    .option('--health-host <ip>', 'address /metrics, /healthz and /readyz listen on (default: all)')
    .addOption(verbosityOption())
    .action(async (flags: HandlerFlags) => {
      const node = flags.nodeName ?? process.env['NODE_NAME'] ?? '';
      if (node === '') {
        cmd.error('--node-name (or $NODE_NAME) must name the node this handler runs on');
        return;
      }
      const log = createLogger({ component: 'virt-handler', verbosity: flags.verbosity });
      // Options are read inside main, so a bad flag or kubeconfig ends as one 'main failed' line.
      await runUntilSignal((signal) => runHandlerRole({ ...roleOptions(flags, node), log }, signal), { log });
    });
  return cmd;
}
