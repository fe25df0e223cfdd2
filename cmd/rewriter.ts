/** `virt rewriter`: the kube-api-rewriter role (flags → RewriterAppOptions → runRewriter until SIGTERM). */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  addKubeFlags,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  DEFAULT_USER_AGENT,
} from '../lib/kernel/kube/index.ts';
import type { KubeFlagValues, RestConfig } from '../lib/kernel/kube/index.ts';
import { createLogger, type Logger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { DEFAULT_MAX_BODY_BYTES, parseListenAddress, runRewriter } from '../lib/rewriter/proxy/index.ts';
import type { RewriterAppOptions } from '../lib/rewriter/proxy/index.ts';

interface RewriterFlags extends KubeFlagValues {
  listen: string;
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
  metricsListen: string;
  maxBodyBytes: number;
  verbosity: string;
}

const pem = (file: string | undefined): string | undefined =>
  file === undefined ? undefined : readFileSync(file, 'utf8');

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number >= 1');
  return n;
}

/** The kubeconfig's API server, or --upstream; the --upstream-* and --client-* flags override either. */
function upstreamConfig(f: RewriterFlags): RestConfig {
  const base: RestConfig =
    f.upstream === undefined
      ? loadRestConfig(kubeFlagsToConfigOptions(f))
      : { server: f.upstream, qps: 0, burst: 1, userAgent: DEFAULT_USER_AGENT };
  const ca = pem(f.upstreamCa);
  const cert = pem(f.clientCert);
  const key = pem(f.clientKey);
  return {
    ...base,
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(f.upstreamTokenFile !== undefined && { tokenFile: f.upstreamTokenFile }),
  };
}

function webhookOptions(f: RewriterFlags): RewriterAppOptions['webhook'] {
  if (f.webhookUpstream === undefined) return undefined;
  if (f.webhookCert === undefined || f.webhookKey === undefined)
    throw new InvalidArgumentError('--webhook-upstream needs --webhook-cert and --webhook-key');
  return {
    listen: parseListenAddress(f.webhookListen),
    cert: readFileSync(f.webhookCert, 'utf8'),
    key: readFileSync(f.webhookKey, 'utf8'),
    upstream: f.webhookUpstream,
    upstreamCa: pem(f.webhookUpstreamCa),
  };
}

function appOptions(f: RewriterFlags, log: Logger): RewriterAppOptions {
  return {
    config: upstreamConfig(f),
    listen: parseListenAddress(f.listen),
    metricsListen: parseListenAddress(f.metricsListen),
    webhook: webhookOptions(f),
    maxBodyBytes: f.maxBodyBytes,
    log,
  };
}

export function rewriterCommand(): Command {
  const cmd = new Command('rewriter').description(
    'proxy renaming kubevirt.io ⇄ internal.virtualization.deckhouse.io',
  );
  addKubeFlags(cmd)
    .option('--listen <addr>', 'kube-api proxy address (plain HTTP)', '127.0.0.1:23915')
    .option('--upstream <url>', 'API server URL (default: from kubeconfig or in-cluster)')
    .option('--upstream-ca <file>', 'CA bundle (PEM) for the API server')
    .option('--upstream-token-file <file>', 'bearer token file for the API server (re-read as it rotates)')
    .option('--client-cert <file>', 'client certificate (PEM) for the API server')
    .option('--client-key <file>', 'client key (PEM) for the API server')
    .option('--webhook-listen <addr>', 'TLS webhook proxy address', ':24192')
    .option('--webhook-cert <file>', 'webhook proxy serving certificate (PEM)')
    .option('--webhook-key <file>', 'webhook proxy serving key (PEM)')
    .option('--webhook-upstream <url>', 'webhook server to forward to (the webhook proxy runs only with it)')
    .option('--webhook-upstream-ca <file>', 'CA bundle (PEM) for the webhook server')
    .option('--metrics-listen <addr>', '/metrics, /healthz and /readyz address', '127.0.0.1:9090')
    .addOption(
      new Option('--max-body-bytes <n>', 'largest request body accepted (413 above)')
        .argParser(positiveInt)
        .default(DEFAULT_MAX_BODY_BYTES),
    )
    .option('-v, --verbosity <n>', 'log verbosity (debug levels above 2)', '2')
    .action(async (flags: RewriterFlags) => {
      const log = createLogger({ component: 'rewriter', verbosity: Number(flags.verbosity) });
      await runUntilSignal((signal) => runRewriter(appOptions(flags, log), signal), { log });
    });
  return cmd;
}
