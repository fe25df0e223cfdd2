/**
 * `virt rewriter` flags → RewriterRoleOptions: the upstream API server from the kubeconfig or --upstream (the
 * --upstream-* and --client-* flags override either), PEM files read, listen addresses parsed.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import {
  DEFAULT_USER_AGENT,
  kubeFlagsToConfigOptions,
  loadRestConfig,
  type KubeFlagValues,
  type RestConfig,
} from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import { parseListenAddress } from './proxy/listen-address.ts';
import type { RewriterRoleOptions } from './role.ts';

export interface RewriterFlags extends KubeFlagValues {
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
  verbosity: number;
}

const pem = (file: string | undefined): string | undefined =>
  file === undefined ? undefined : readFileSync(file, 'utf8');

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

function webhookOptions(f: RewriterFlags): RewriterRoleOptions['webhook'] {
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

/** The role's options from its flags: PEM files read, listen addresses parsed. */
export function rewriterRoleOptions(f: RewriterFlags, log: Logger): RewriterRoleOptions {
  return {
    config: upstreamConfig(f),
    listen: parseListenAddress(f.listen),
    metricsListen: parseListenAddress(f.metricsListen),
    webhook: webhookOptions(f),
    maxBodyBytes: f.maxBodyBytes,
    log,
  };
}
