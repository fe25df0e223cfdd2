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
function upstreamConfig(rewriterFlags: RewriterFlags): RestConfig {
  const base: RestConfig =
    rewriterFlags.upstream === undefined
      ? loadRestConfig(kubeFlagsToConfigOptions(rewriterFlags))
      : { server: rewriterFlags.upstream, qps: 0, burst: 1, userAgent: DEFAULT_USER_AGENT };
  const ca = pem(rewriterFlags.upstreamCa);
  const cert = pem(rewriterFlags.clientCert);
  const key = pem(rewriterFlags.clientKey);
  return {
    ...base,
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(rewriterFlags.upstreamTokenFile !== undefined && { tokenFile: rewriterFlags.upstreamTokenFile }),
  };
}

function webhookOptions(rewriterFlags: RewriterFlags): RewriterRoleOptions['webhook'] {
  if (rewriterFlags.webhookUpstream === undefined) return undefined;
  if (rewriterFlags.webhookCert === undefined || rewriterFlags.webhookKey === undefined)
    throw new InvalidArgumentError('--webhook-upstream needs --webhook-cert and --webhook-key');
  return {
    listen: parseListenAddress(rewriterFlags.webhookListen),
    cert: readFileSync(rewriterFlags.webhookCert, 'utf8'),
    key: readFileSync(rewriterFlags.webhookKey, 'utf8'),
    upstream: rewriterFlags.webhookUpstream,
    upstreamCa: pem(rewriterFlags.webhookUpstreamCa),
  };
}

/** The role's options from its flags: PEM files read, listen addresses parsed. */
export function rewriterRoleOptions(rewriterFlags: RewriterFlags, log: Logger): RewriterRoleOptions {
  return {
    config: upstreamConfig(rewriterFlags),
    listen: parseListenAddress(rewriterFlags.listen),
    metricsListen: parseListenAddress(rewriterFlags.metricsListen),
    webhook: webhookOptions(rewriterFlags),
    maxBodyBytes: rewriterFlags.maxBodyBytes,
    log,
  };
}
