/**
 * Builds the client configuration (server, TLS material, credentials, client-side rate limits) from a
 * kubeconfig or the pod's service account. The only module that imports @kubernetes/client-node: its
 * KubeConfig parses and merges kubeconfig files; everything after that is a plain RestConfig object.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { KubeConfig, bufferFromFileOrString, type Cluster, type User } from '@kubernetes/client-node';
import { KvError, errorMessage } from '../errors/errors.ts';
import { chooseConfigSource, type ConfigSource } from './config-source.ts';

export interface RestConfig {
  /** Base URL of the API server; may carry a path prefix. */
  server: string;
  /** PEM text. */
  ca?: string;
  cert?: string;
  key?: string;
  /** Static bearer token. */
  token?: string;
  /** Bearer token re-read from this file as it rotates (service-account tokens). */
  tokenFile?: string;
  insecureSkipTLSVerify?: boolean;
  /** TLS server name to verify instead of the URL host (kubeconfig tls-server-name). */
  tlsServerName?: string;
  /** Namespace of the current context, or of the pod's service account in-cluster. */
  namespace?: string;
  /** Client-side requests per second; 0 or less turns the client-side limit off. */
  qps: number;
  burst: number;
  userAgent: string;
}

export interface LoadRestConfigOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** true: only the service account; false: never; undefined: after KUBECONFIG, before ~/.kube/config. */
  inCluster?: boolean | undefined;
  qps?: number | undefined;
  burst?: number | undefined;
  userAgent?: string | undefined;
  /** Environment read for KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT and HOME; process.env by default. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Service-account directory (tests point it at a fake one). */
  serviceAccountDir?: string | undefined;
}

export const DEFAULT_QPS = 50;
export const DEFAULT_BURST = 100;
export const DEFAULT_USER_AGENT = 'kubevirt-ts';

type Connection = Omit<RestConfig, 'qps' | 'burst' | 'userAgent'>;

export function loadRestConfig(opts: LoadRestConfigOptions = {}): RestConfig {
  const limits = rateLimits(opts);
  const source = chooseConfigSource({
    kubeconfig: opts.kubeconfig,
    inCluster: opts.inCluster,
    serviceAccountDir: opts.serviceAccountDir,
    env: opts.env ?? process.env,
    exists: existsSync,
  });
  const where = describeSource(source);
  const kc = source.kind === 'in-cluster' ? inClusterKubeConfig(source) : fileKubeConfig(source.files);
  if (opts.context !== undefined) selectContext(kc, opts.context, where);
  const conn = connectionOf(kc, where);
  if (source.kind === 'in-cluster') {
    const nsFile = join(source.serviceAccountDir, 'namespace');
    if (existsSync(nsFile)) conn.namespace = readFileSync(nsFile, 'utf8').trim();
  }
  return { ...conn, ...limits, userAgent: opts.userAgent ?? DEFAULT_USER_AGENT };
}

function rateLimits(opts: LoadRestConfigOptions): { qps: number; burst: number } {
  const qps = opts.qps ?? DEFAULT_QPS;
  const burst = opts.burst ?? DEFAULT_BURST;
  if (!Number.isFinite(qps)) throw new KvError('KV_ERR_CONFIG', `client QPS must be a number, got ${qps}`);
  if (qps > 0 && !(Number.isInteger(burst) && burst >= 1)) {
    throw new KvError('KV_ERR_CONFIG', `client burst must be a whole number >= 1, got ${burst}`);
  }
  return { qps, burst };
}

function describeSource(s: ConfigSource): string {
  if (s.kind === 'in-cluster') return `in-cluster service account ${s.serviceAccountDir}`;
  const from = { flag: '--kubeconfig', env: 'KUBECONFIG', home: 'default' }[s.origin];
  return `kubeconfig ${s.files.join(', ')} (${from})`;
}

function inClusterKubeConfig(source: Extract<ConfigSource, { kind: 'in-cluster' }>): KubeConfig {
  const host = isIPv6(source.host) ? `[${source.host}]` : source.host;
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    {
      name: 'in-cluster',
      server: `https://${host}:${source.port}`,
      caFile: join(source.serviceAccountDir, 'ca.crt'),
      skipTLSVerify: false,
    },
    {
      name: 'in-cluster',
      authProvider: { name: 'tokenFile', config: { tokenFile: join(source.serviceAccountDir, 'token') } },
    },
  );
  return kc;
}

/** Loads the files; for names defined twice and for current-context, the first file wins (kubectl rules). */
function fileKubeConfig(files: readonly string[]): KubeConfig {
  const kc = new KubeConfig();
  files.forEach((file, i) => {
    const next = i === 0 ? kc : new KubeConfig();
    try {
      next.loadFromFile(file);
    } catch (err) {
      throw new KvError('KV_ERR_CONFIG', `cannot load kubeconfig ${file}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    if (next !== kc) mergeFirstWins(kc, next);
  });
  return kc;
}

function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  for (const c of from.getClusters()) if (!into.getCluster(c.name)) into.addCluster(c);
  for (const u of from.getUsers()) if (!into.getUser(u.name)) into.addUser(u);
  for (const c of from.getContexts()) if (!into.getContextObject(c.name)) into.addContext(c);
  if (!into.getCurrentContext()) into.setCurrentContext(from.getCurrentContext());
}

function contextNames(kc: KubeConfig): string {
  const names = kc.getContexts().map((c) => c.name);
  return names.length > 0 ? names.join(', ') : 'none';
}

function selectContext(kc: KubeConfig, name: string, where: string): void {
  if (!kc.getContextObject(name)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `context "${name}" not found in ${where}: pass one of --context ${contextNames(kc)}`,
    );
  }
  kc.setCurrentContext(name);
}

function connectionOf(kc: KubeConfig, where: string): Connection {
  const current = kc.getCurrentContext() as string | undefined;
  const ctx = current ? kc.getContextObject(current) : null;
  if (!ctx) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `${where} has no usable current-context ("${current ?? ''}"): pass --context (available: ${contextNames(kc)})`,
    );
  }
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `context "${ctx.name}" in ${where} names cluster "${ctx.cluster}", which is not defined`,
    );
  }
  const conn: Connection = { ...clusterPart(cluster, where), ...userPart(kc.getUser(ctx.user), where) };
  if (ctx.namespace) conn.namespace = ctx.namespace;
  return conn;
}

function clusterPart(cluster: Cluster, where: string): Connection {
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch (err) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where} has an invalid server URL "${cluster.server}"`,
      { cause: err },
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && cluster.skipTLSVerify)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where}: server ${cluster.server} must be https:// (plain http:// only with insecure-skip-tls-verify: true)`,
    );
  }
  if (cluster.proxyUrl) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where}: proxy-url is not supported; remove it`,
    );
  }
  const out: Connection = { server: cluster.server };
  const ca = readPem(cluster.caFile, cluster.caData, `certificate-authority of cluster "${cluster.name}"`);
  if (ca !== undefined) out.ca = ca;
  if (cluster.skipTLSVerify) out.insecureSkipTLSVerify = true;
  if (cluster.tlsServerName) out.tlsServerName = cluster.tlsServerName;
  return out;
}

function userPart(user: User | null, where: string): Omit<Connection, 'server'> {
  if (!user) return {};
  const tokenFile = tokenFileOf(user);
  const unsupported = unsupportedAuth(user, tokenFile);
  if (unsupported) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `user "${user.name}" in ${where} uses ${unsupported}, which is not supported: ` +
        'use a token, token-file or client certificate',
    );
  }
  const out: Omit<Connection, 'server'> = {};
  const what = `of user "${user.name}"`;
  const cert = readPem(user.certFile, user.certData, `client-certificate ${what}`);
  const key = readPem(user.keyFile, user.keyData, `client-key ${what}`);
  if (cert !== undefined) out.cert = cert;
  if (key !== undefined) out.key = key;
  if (user.token) out.token = user.token.trim();
  if (tokenFile !== undefined) out.tokenFile = tokenFile;
  return out;
}

/** client-node's own representation of a token file: auth-provider { config: { tokenFile } }. */
function tokenFileOf(user: User): string | undefined {
  const provider = user.authProvider as { config?: { tokenFile?: unknown } } | null | undefined;
  const file = provider?.config?.tokenFile;
  return typeof file === 'string' ? file : undefined;
}

function unsupportedAuth(user: User, tokenFile: string | undefined): string | undefined {
  if (user.exec) return 'exec credential plugins';
  if (user.username || user.password) return 'basic auth (username/password)';
  if (user.impersonateUser) return 'impersonation (as)';
  if (user.authProvider && tokenFile === undefined) return 'an auth-provider';
  return undefined;
}

function readPem(file: string | undefined, data: string | undefined, what: string): string | undefined {
  try {
    return bufferFromFileOrString(file ?? undefined, data ?? undefined)?.toString('utf8');
  } catch (err) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cannot read ${what} from ${file ?? 'inline data'}: ${errorMessage(err)}`,
      {
        cause: err,
      },
    );
  }
}
