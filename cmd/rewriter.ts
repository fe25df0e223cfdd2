/**
 * `virt rewriter`: the kube-api-rewriter role (flags → RewriterRoleOptions → runRewriterRole until SIGTERM).
 * The upstream API server comes from the kubeconfig or --upstream (the --upstream-* and --client-* flags
 * override either); PEM files are read and checked, listen addresses parsed. The kube-api proxy listens on
 * loopback only unless --allow-remote-listen says otherwise: it is plain HTTP, so the tokens its clients send
 * would cross the network in clear text. --listen-unix adds the socket where a request without credentials runs
 * as the rewriter (0600, or 0660 with --listen-unix-group). Every refusal is KV_ERR_CONFIG naming the flag and
 * the fix, never a file's content.
 */
import { isAbsolute } from 'node:path';
import { Command, Option } from 'commander';
import { KvError } from '../lib/kernel/errors/errors.ts';
import {
  addKubeFlags,
  DEFAULT_USER_AGENT,
  checkCertificates,
  checkKeyPair,
  checkPrivateKey,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  pemFlag,
  pemPairFlags,
  type KubeFlagValues,
  type RestConfig,
} from '../lib/kernel/kube/index.ts';
import { createLogger, type Logger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import type { UnixSocketOptions } from '../lib/kernel/safepath/index.ts';
import { APISERVER_WEBHOOK_CLIENT_CN } from '../lib/kubevirt/webhooks.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../lib/rewriter/proxy/index.ts';
import { isLoopback, parseListenAddress, type ListenAddress } from '../lib/rewriter/proxy/listen-address.ts';
import type { WebhookCallers } from '../lib/rewriter/proxy/webhook.ts';
import { runRewriterRole, type RewriterRoleOptions } from '../lib/rewriter/role.ts';
import {
  addMetricsTlsFlags,
  metricsTls,
  namesOption,
  parsed,
  positiveInt,
  verbosityOption,
  wholeNumber,
  type MetricsTlsFlags,
} from './flags.ts';

export interface RewriterFlags extends KubeFlagValues, MetricsTlsFlags {
  listen: string;
  allowRemoteListen: boolean;
  listenUnix?: string;
  listenUnixGroup?: number;
  upstream?: string;
  upstreamCa?: string;
  upstreamTokenFile?: string;
  clientCert?: string;
  clientKey?: string;
  webhookListen: string;
  webhookCert?: string;
  webhookKey?: string;
  webhookUpstream?: string;
  webhookUpstreamCa?: string;
  webhookUpstreamClientCert?: string;
  webhookUpstreamClientKey?: string;
  webhookClientCaFile?: string;
  webhookClientAllowedNames: string[];
  metricsListen: string;
  maxBodyBytes: number;
  verbosity: number;
}

/** The kubeconfig's API server, or --upstream; the --upstream-* and --client-* flags override either. */
function upstreamConfig(f: RewriterFlags): RestConfig {
  const base: RestConfig =
    f.upstream === undefined
      ? loadRestConfig(kubeFlagsToConfigOptions(f))
      : { server: f.upstream, qps: 0, burst: 1, userAgent: DEFAULT_USER_AGENT };
  const ca = pemFlag('--upstream-ca', f.upstreamCa, checkCertificates);
  const cert = pemFlag('--client-cert', f.clientCert, checkCertificates) ?? base.cert;
  const key = pemFlag('--client-key', f.clientKey, checkPrivateKey) ?? base.key;
  if ((cert === undefined) !== (key === undefined))
    throw new KvError('KV_ERR_CONFIG', '--client-cert and --client-key go together: pass both');
  if (cert !== undefined && key !== undefined)
    checkKeyPair(cert, key, 'the client certificate and key (--client-cert, --client-key)');
  return {
    ...base,
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(f.upstreamTokenFile !== undefined && { tokenFile: f.upstreamTokenFile }),
  };
}

/** The webhook proxy serves TLS only: no upstream, no proxy; an upstream without a certificate and key, refused. */
function webhookOptions(f: RewriterFlags, log: Logger): RewriterRoleOptions['webhook'] {
  if (f.webhookUpstream === undefined) return undefined;
  if (f.webhookCert === undefined || f.webhookKey === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      '--webhook-upstream needs --webhook-cert and --webhook-key: the webhook proxy serves TLS only',
    );
  const { cert, key } = pemPairFlags(
    { flag: '--webhook-cert', file: f.webhookCert },
    { flag: '--webhook-key', file: f.webhookKey },
  );
  const upstreamClient = webhookUpstreamClient(f);
  const callers = webhookCallers(f, log);
  return {
    listen: parseListenAddress(f.webhookListen, '--webhook-listen'),
    cert,
    key,
    upstream: f.webhookUpstream,
    upstreamCa: pemFlag('--webhook-upstream-ca', f.webhookUpstreamCa, checkCertificates),
    upstreamClient: upstreamClient?.pem,
    callers,
    files: {
      cert: f.webhookCert,
      key: f.webhookKey,
      callersCa: callers && f.webhookClientCaFile,
      upstreamCa: f.webhookUpstreamCa,
      upstreamClient: upstreamClient?.files,
    },
  };
}

/** Who may call the webhook proxy: --webhook-client-ca-file with its names list; without it anyone (warned). */
function webhookCallers(f: RewriterFlags, log: Logger): WebhookCallers | undefined {
  const ca = pemFlag('--webhook-client-ca-file', f.webhookClientCaFile, checkCertificates);
  if (ca === undefined) {
    log.warning(
      'the webhook proxy serves any caller: pass --webhook-client-ca-file with the CA of the API server webhook client certificate',
    );
    return undefined;
  }
  const allowedNames = f.webhookClientAllowedNames;
  if (allowedNames.length === 0)
    throw new KvError('KV_ERR_CONFIG', '--webhook-client-allowed-names is empty: name at least one caller');
  return { ca, allowedNames };
}

type Pair = { cert: string; key: string };

/** The client certificate the webhook proxy shows its upstream (--webhook-upstream-client-cert/-key), if any. */
function webhookUpstreamClient(f: RewriterFlags): { pem: Pair; files: Pair } | undefined {
  const certFile = f.webhookUpstreamClientCert;
  const keyFile = f.webhookUpstreamClientKey;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new KvError(
      'KV_ERR_CONFIG',
      '--webhook-upstream-client-cert and --webhook-upstream-client-key go together: pass both',
    );
  const pem = pemPairFlags(
    { flag: '--webhook-upstream-client-cert', file: certFile },
    { flag: '--webhook-upstream-client-key', file: keyFile },
  );
  return { pem, files: { cert: certFile, key: keyFile } };
}

/** --listen, on loopback unless --allow-remote-listen. */
function kubeApiListen(f: RewriterFlags, log: Logger): ListenAddress {
  const addr = parseListenAddress(f.listen, '--listen');
  if (isLoopback(addr)) return addr;
  if (!f.allowRemoteListen) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `--listen ${f.listen}: not a loopback address; the kube-api proxy is plain HTTP, so the tokens of ` +
        'its clients would cross the network in clear text: it listens on 127.0.0.0/8, ::1 or localhost ' +
        'only: use --listen 127.0.0.1:<port>, or pass --allow-remote-listen to accept other hosts',
    );
  }
  log.warning('kube-api proxy accepts remote clients (--allow-remote-listen)', { listen: f.listen });
  return addr;
}

/** --listen-unix: 0600, or 0660 owned by --listen-unix-group (which needs --listen-unix). */
function kubeApiSocket(f: RewriterFlags): UnixSocketOptions | undefined {
  if (f.listenUnix === undefined) {
    if (f.listenUnixGroup !== undefined)
      throw new KvError('KV_ERR_CONFIG', '--listen-unix-group needs --listen-unix: pass the socket path too');
    return undefined;
  }
  if (!isAbsolute(f.listenUnix))
    throw new KvError('KV_ERR_CONFIG', `--listen-unix ${f.listenUnix}: give an absolute path`);
  return f.listenUnixGroup === undefined
    ? { path: f.listenUnix, mode: 0o600 }
    : { path: f.listenUnix, mode: 0o660, gid: f.listenUnixGroup };
}

/** The role's options from its flags: PEM files read and checked, listen addresses parsed. */
export function rewriterRoleOptions(rewriterFlags: RewriterFlags, log: Logger): RewriterRoleOptions {
  return {
    listen: kubeApiListen(rewriterFlags, log),
    listenUnix: kubeApiSocket(rewriterFlags),
    config: upstreamConfig(rewriterFlags),
    metricsListen: parseListenAddress(rewriterFlags.metricsListen, '--metrics-listen'),
    metricsTls: metricsTls(rewriterFlags),
    webhook: webhookOptions(rewriterFlags, log),
    maxBodyBytes: rewriterFlags.maxBodyBytes,
    log,
  };
}

export function rewriterCommand(): Command {
  const cmd = new Command('rewriter').description(
    'proxy renaming kubevirt.io ⇄ internal.virtualization.deckhouse.io',
  );
  addMetricsTlsFlags(addKubeFlags(cmd))
    .option(
      '--listen <addr>',
      'kube-api proxy address (plain HTTP): loopback only (127.0.0.0/8, ::1, localhost); it forwards only requests with their own Authorization (401 otherwise)',
      '127.0.0.1:23915',
    )
    .option(
      '--allow-remote-listen',
      "let --listen take a non-loopback address; its clients' tokens then cross the network in clear text",
      false,
    )
    .option(
      '--listen-unix <path>',
      'kube-api proxy on a unix socket too (created 0600), where a request without credentials runs as the rewriter: for the container the sidecar serves',
    )
    .addOption(
      new Option(
        '--listen-unix-group <gid>',
        'make the --listen-unix socket 0660, owned by this group',
      ).argParser(wholeNumber),
    )
    .option('--upstream <url>', 'API server URL (default: from kubeconfig or in-cluster)')
    .option('--upstream-ca <file>', 'CA bundle (PEM) for the API server')
    .option('--upstream-token-file <file>', 'bearer token file for the API server (re-read as it rotates)')
    .option('--client-cert <file>', 'client certificate (PEM) for the API server')
    .option('--client-key <file>', 'client key (PEM) for the API server')
    .option(
      '--webhook-listen <addr>',
      'TLS webhook proxy address, reached by the API server on the Pod address (adds no credentials)',
      ':24192',
    )
    .option('--webhook-cert <file>', 'webhook proxy serving certificate (PEM)')
    .option('--webhook-key <file>', 'webhook proxy serving key (PEM)')
    .option('--webhook-upstream <url>', 'webhook server to forward to (the webhook proxy runs only with it)')
    .option('--webhook-upstream-ca <file>', 'CA bundle (PEM) for the webhook server')
    .option(
      '--webhook-upstream-client-cert <file>',
      'client certificate (PEM) the webhook proxy shows the webhook server',
    )
    .option('--webhook-upstream-client-key <file>', 'its key (PEM)')
    .option(
      '--webhook-client-ca-file <file>',
      "the CA (PEM) of the webhook proxy's callers' client certificates (the API server's webhook client, from its admission configuration); without it any caller is served",
    )
    .addOption(
      namesOption(
        '--webhook-client-allowed-names <names>',
        "comma-separated common names a webhook caller's certificate must carry",
        [APISERVER_WEBHOOK_CLIENT_CN],
      ),
    )
    .option('--metrics-listen <addr>', '/metrics, /healthz and /readyz address', '127.0.0.1:9090')
    .addOption(
      parsed(
        '--max-body-bytes <n>',
        'largest request body accepted (413 above)',
        positiveInt,
        DEFAULT_MAX_BODY_BYTES,
      ),
    )
    .addOption(verbosityOption())
    .action(async (flags: RewriterFlags) => {
      const log = createLogger({ component: 'rewriter', verbosity: flags.verbosity });
      await runUntilSignal((signal) => runRewriterRole(rewriterRoleOptions(flags, log), signal), { log });
    });
  return cmd;
}
