/**
 * Builds the client configuration (server, TLS material, credentials, client-side rate limits) from a
 * kubeconfig or the pod's service account, as client-go's `clientcmd` and `rest.InClusterConfig` do: the
 * files are parsed and merged by kubeconfig-file.ts, and the chosen context becomes a plain RestConfig.
 * Errors name the file, the entry and the field, never their content (load-errors.ts, pem-check.ts): the
 * certificates and keys are checked here, so a broken one fails at start-up. A CA together with
 * insecure-skip-tls-verify is refused, as client-go does; insecure-skip-tls-verify, and a token sent over
 * plain http://, load with a warning.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { dirname, join } from 'node:path';
import { KvError } from '../errors/errors.ts';
import { createLogger } from '../log/log.ts';
import { chooseConfigSource, type ConfigSource } from './config-source.ts';
import {
  findNamed,
  mergeKubeconfigs,
  parseKubeconfig,
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigUser,
} from './kubeconfig-file.ts';
import { NOT_A_KUBECONFIG, describeLoadProblem, errnoText } from './load-errors.ts';
import { checkCertificates, checkKeyPair, checkPrivateKey } from './pem-check.ts';
import { checkHeaderToken } from './token-source.ts';

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
  /** Where the warnings go (a setting that weakens TLS or exposes a token); a JSON log line by default. */
  onWarning?: ((w: ConfigWarning) => void) | undefined;
}

/** A kubeconfig setting that works but weakens the connection. Never carries a credential. */
export interface ConfigWarning {
  readonly code: 'insecure-skip-tls-verify' | 'token-over-http';
  /** Constant, for a log line. */
  readonly msg: string;
  /** The kubeconfig source and entry, the server's origin. */
  readonly fields: Readonly<Record<string, string>>;
  /** One sentence for a person. */
  readonly text: string;
}

const logWarning = (w: ConfigWarning): void => {
  createLogger({ component: 'kube-config' }).warning(w.msg, { ...w.fields, code: w.code });
};

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
  const loaded = source.kind === 'in-cluster' ? inClusterKubeconfig(source) : fileKubeconfig(source);
  const kc = opts.context === undefined ? loaded : selectContext(loaded, opts.context, where);
  const conn = connectionOf(kc, where);
  if (source.kind === 'in-cluster') {
    // Re-read as it rotates, unlike a kubeconfig's token-file (read once, as client-node does).
    conn.tokenFile = join(source.serviceAccountDir, 'token');
    const nsFile = join(source.serviceAccountDir, 'namespace');
    if (existsSync(nsFile)) conn.namespace = readFileSync(nsFile, 'utf8').trim();
  }
  for (const w of connectionWarnings(kc, conn, where)) (opts.onWarning ?? logWarning)(w);
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

const ORIGIN = { flag: '--kubeconfig', env: 'KUBECONFIG', home: 'default' } as const;

function describeSource(s: ConfigSource): string {
  if (s.kind === 'in-cluster') return `in-cluster service account ${s.serviceAccountDir}`;
  return `kubeconfig ${s.files.join(', ')} (${ORIGIN[s.origin]})`;
}

function inClusterKubeconfig(source: Extract<ConfigSource, { kind: 'in-cluster' }>): Kubeconfig {
  const host = isIPv6(source.host) ? `[${source.host}]` : source.host;
  return {
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${host}:${source.port}`,
        caFile: join(source.serviceAccountDir, 'ca.crt'),
        insecureSkipTLSVerify: false,
      },
    ],
    users: [{ name: 'in-cluster' }],
    contexts: [{ name: 'loaded-context', cluster: 'in-cluster', user: 'in-cluster' }],
    currentContext: 'loaded-context',
  };
}

/** Loads the files; for names defined twice and for current-context, the first file wins (kubectl rules). */
function fileKubeconfig(source: Extract<ConfigSource, { kind: 'kubeconfig' }>): Kubeconfig {
  const kc = source.files
    .map((file) => {
      try {
        return parseKubeconfig(readFileSync(file, 'utf8'), dirname(file));
      } catch (err) {
        // The parser's message quotes the lines around the error: rebuild it from the kind and position.
        const problem = describeLoadProblem(err, file);
        throw new KvError(
          'KV_ERR_CONFIG',
          `kubeconfig ${file} (${ORIGIN[source.origin]}): ${problem.text}`,
          problem.safeCause ? { cause: err } : undefined,
        );
      }
    })
    .reduce(mergeKubeconfigs);
  const empty = kc.clusters.length + kc.users.length + kc.contexts.length === 0;
  if (empty) throw new KvError('KV_ERR_CONFIG', `${describeSource(source)}: ${NOT_A_KUBECONFIG}`);
  return kc;
}

function contextNames(kc: Kubeconfig): string {
  const names = kc.contexts.map((c) => c.name);
  return names.length > 0 ? names.join(', ') : 'none';
}

function selectContext(kc: Kubeconfig, name: string, where: string): Kubeconfig {
  if (!findNamed(kc.contexts, name)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `context "${name}" not found in ${where}: pass one of --context ${contextNames(kc)}`,
    );
  }
  return { ...kc, currentContext: name };
}

function connectionOf(kc: Kubeconfig, where: string): Connection {
  const current = kc.currentContext;
  const ctx = findNamed(kc.contexts, current);
  if (!ctx) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `${where} has no usable current-context ("${current ?? ''}"): pass --context (available: ${contextNames(kc)})`,
    );
  }
  const cluster = findNamed(kc.clusters, ctx.cluster);
  if (!cluster) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `context "${ctx.name}" in ${where} names cluster "${ctx.cluster}", which is not defined`,
    );
  }
  const conn: Connection = {
    ...clusterPart(cluster, where),
    ...userPart(findNamed(kc.users, ctx.user), where),
  };
  if (ctx.namespace) conn.namespace = ctx.namespace;
  return conn;
}

/** client-go's TLSConfigFor refuses a CA with insecure-skip-tls-verify, in these words (transport.go). */
function refuseCaWithInsecure(cluster: KubeconfigCluster, where: string): void {
  if ((cluster.caFile ?? cluster.caData) === undefined || !cluster.insecureSkipTLSVerify) return;
  throw new KvError(
    'KV_ERR_CONFIG',
    `cluster "${cluster.name}" in ${where}: specifying a root certificates file with the insecure flag is not allowed: ` +
      'remove certificate-authority (or certificate-authority-data) or insecure-skip-tls-verify',
  );
}

function clusterPart(cluster: KubeconfigCluster, where: string): Connection {
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    // Neither the text nor the parser's error (it keeps the input): a URL can hold a password.
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where}: server is not a valid URL: fix clusters[].cluster.server (https://host:port)`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && cluster.insecureSkipTLSVerify)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where}: server ${url.origin} must be https:// (plain http:// only with insecure-skip-tls-verify: true)`,
    );
  }
  if (cluster.proxyUrl !== undefined) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `cluster "${cluster.name}" in ${where}: proxy-url is not supported; remove it`,
    );
  }
  refuseCaWithInsecure(cluster, where);
  const out: Connection = { server: cluster.server };
  const what = `certificate-authority of cluster "${cluster.name}" in ${where}`;
  const ca = readText(cluster.caFile, cluster.caData, what);
  if (ca !== undefined) checkCertificates(ca, what);
  if (ca !== undefined) out.ca = ca;
  if (cluster.insecureSkipTLSVerify) out.insecureSkipTLSVerify = true;
  if (cluster.tlsServerName !== undefined) out.tlsServerName = cluster.tlsServerName;
  return out;
}

/** What the loaded connection gives away: an unverified server, a token in clear text. */
function connectionWarnings(kc: Kubeconfig, conn: Connection, where: string): ConfigWarning[] {
  const ctx = findNamed(kc.contexts, kc.currentContext);
  const cluster = ctx?.cluster ?? '';
  const user = ctx?.user ?? '';
  const origin = new URL(conn.server).origin;
  const out: ConfigWarning[] = [];
  if (conn.insecureSkipTLSVerify === true) {
    out.push({
      code: 'insecure-skip-tls-verify',
      msg: "kubeconfig turns off verification of the API server's certificate",
      fields: { source: where, cluster, server: origin },
      text: `cluster "${cluster}" in ${where} sets insecure-skip-tls-verify: the API server's certificate is not verified, so anyone on the way to ${origin} can pose as it`,
    });
  }
  if (origin.startsWith('http:') && (conn.token !== undefined || conn.tokenFile !== undefined)) {
    out.push({
      code: 'token-over-http',
      msg: 'kubeconfig sends a bearer token over plain http',
      fields: { source: where, user, server: origin },
      text: `user "${user}" in ${where}: its token is sent to ${origin} over plain http://, readable by anyone on the way`,
    });
  }
  return out;
}

function userPart(user: KubeconfigUser | undefined, where: string): Omit<Connection, 'server'> {
  if (!user) return {};
  if (user.unsupported !== undefined) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `user "${user.name}" in ${where} uses ${user.unsupported}, which is not supported: ` +
        'use a token, token-file or client certificate',
    );
  }
  const out: Omit<Connection, 'server'> = { ...clientCertificate(user, where) };
  const token = (
    user.token ?? readText(user.tokenFile, undefined, `token-file of user "${user.name}" in ${where}`)
  )?.trim();
  if (token !== undefined) {
    checkHeaderToken(token, `token of user "${user.name}" in ${where}`);
    out.token = token;
  }
  return out;
}

/** The client certificate and key: both or neither, each readable PEM, and the key the certificate's. */
function clientCertificate(user: KubeconfigUser, where: string): Pick<Connection, 'cert' | 'key'> {
  const of = `of user "${user.name}" in ${where}`;
  const cert = readText(user.certFile, user.certData, `client-certificate ${of}`);
  const key = readText(user.keyFile, user.keyData, `client-key ${of}`);
  if (cert === undefined && key === undefined) return {};
  if (cert === undefined || key === undefined) {
    const [has, lacks] =
      cert === undefined ? ['client-key', 'client-certificate'] : ['client-certificate', 'client-key'];
    throw new KvError(
      'KV_ERR_CONFIG',
      `user "${user.name}" in ${where} has a ${has} but no ${lacks}: add ${lacks} or ${lacks}-data`,
    );
  }
  checkCertificates(cert, `client-certificate ${of}`);
  checkPrivateKey(key, `client-key ${of}`);
  checkKeyPair(cert, key, `client-certificate and client-key ${of}`);
  return { cert, key };
}

/** The file's text, else the base64 inline data decoded, else undefined (client-node's bufferFromFileOrString). */
function readText(file: string | undefined, data: string | undefined, what: string): string | undefined {
  try {
    if (file !== undefined) return readFileSync(file, 'utf8');
    return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
  } catch (err) {
    const why = errnoText(err) ?? 'unreadable';
    throw new KvError('KV_ERR_CONFIG', `${what}: cannot read ${file ?? 'the inline data'} (${why})`, {
      cause: err,
    });
  }
}
