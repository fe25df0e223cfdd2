/**
 * Pure parsers for the trust the api role needs:
 *  - `kube-system/extension-apiserver-authentication`, which kube-apiserver writes for aggregated API servers:
 *    the request-header (front-proxy) CA, the proxy client names it accepts and the identity header names,
 *    each list a JSON array of strings;
 *  - the Deckhouse `virtualization-ca` ConfigMap (key `ca-bundle`, in the module's namespace), whose CA signs
 *    the client certificate virtualization-api presents when it proxies a user's call with X-Remote-* headers;
 *  - a CA given by a flag together with the common names its client certificates must carry (NamedTrust): the
 *    virtualization-api's (--client-ca-file) and the admission webhooks' callers'. The list is never empty:
 *    the module's CA signs every certificate of the module, so the name is what tells its callers apart.
 *
 * The cluster's `client-ca-file` is deliberately not a source of forwarded identities: it signs every kubelet,
 * controller and user certificate, so trusting X-Remote-User from it would let any of them act as anyone.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import { REWRITER_CLIENT_CN } from '../../kubevirt/certificate-names.ts';
import { CaBundle } from './ca-bundle.ts';

/** The common name of the Deckhouse virtualization-api's client certificate (its hooks' APIProxyCertCN). */
export const VIRTUALIZATION_API_PROXY_CN = 'virtualization-api-proxy';
/** The webhook callers' name: Deckhouse's kube-api-rewriter, the sidecar that is the webhook proxy there. */
export const WEBHOOK_CLIENT_CN = REWRITER_CLIENT_CN;

const EXTENSION_AUTH_CONFIGMAP = 'kube-system/extension-apiserver-authentication';
const VIRTUALIZATION_CA_CONFIGMAP = 'virtualization-ca';

const KEYS = {
  clientCa: 'requestheader-client-ca-file',
  allowedNames: 'requestheader-allowed-names',
  usernameHeaders: 'requestheader-username-headers',
  uidHeaders: 'requestheader-uid-headers',
  groupHeaders: 'requestheader-group-headers',
  extraHeadersPrefix: 'requestheader-extra-headers-prefix',
  caBundle: 'ca-bundle',
} as const;

/** What the request-header authenticator needs. Header names and prefixes are lower-cased (Node's form). */
export interface RequestHeaderConfig {
  readonly ca: CaBundle;
  /** Common names a proxy certificate may carry; empty means any certificate from `ca`. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  /** Empty on clusters older than the RemoteRequestHeaderUID feature (the key is then absent). */
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

/** A CA and the common names its client certificates must carry to be accepted (at least one). */
export interface NamedTrust {
  readonly ca: CaBundle;
  readonly allowedNames: readonly string[];
  /** The flag or key that lists the names, for refusals. */
  readonly namesFrom: string;
}

/** Everything authenticate() needs: the request-header trust, and the virtualization-api's when deployed. */
export interface AuthConfig {
  readonly requestHeader: RequestHeaderConfig;
  readonly virtualization?: NamedTrust | undefined;
}

export type ConfigMapData = Readonly<Record<string, string | undefined>>;

function configError(source: string, key: string, problem: string): KvError {
  return new KvError('KV_ERR_CONFIG', `${source}: key ${key} ${problem}`);
}

/** A JSON array of strings; '' means an empty list, as Kubernetes reads it. Values stay out of messages. */
function stringList(data: ConfigMapData, key: string, required: boolean): string[] {
  const raw = data[key];
  if (raw === undefined) {
    if (required) throw configError(EXTENSION_AUTH_CONFIGMAP, key, 'is missing');
    return [];
  }
  if (raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw configError(EXTENSION_AUTH_CONFIGMAP, key, 'is not valid JSON');
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed) || !parsed.every((v): v is string => typeof v === 'string')) {
    throw configError(EXTENSION_AUTH_CONFIGMAP, key, 'is not a JSON array of strings');
  }
  return parsed;
}

/** Header names are trimmed and must not be empty (Kubernetes' trimHeaders); Node lower-cases names. */
function headerNames(data: ConfigMapData, key: string, required: boolean): string[] {
  return stringList(data, key, required).map((name) => {
    const trimmed = name.trim();
    if (trimmed === '') throw configError(EXTENSION_AUTH_CONFIGMAP, key, 'lists an empty header name');
    return trimmed.toLowerCase();
  });
}

function bundle(source: string, data: ConfigMapData, key: string): CaBundle {
  const pem = data[key];
  if (pem === undefined || pem.trim() === '') throw configError(source, key, 'is missing');
  return CaBundle.parse(pem, `${source}: key ${key}`);
}

/**
 * Parses the extension-apiserver-authentication data. The CA, the allowed names and the user name, group and
 * extra headers are required (kube-apiserver writes them all when --requestheader-client-ca-file is set); the
 * uid headers are optional. Throws KvError KV_ERR_CONFIG naming the key.
 */
export function parseRequestHeaderConfig(data: ConfigMapData): RequestHeaderConfig {
  const usernameHeaders = headerNames(data, KEYS.usernameHeaders, true);
  if (usernameHeaders.length === 0) {
    throw configError(EXTENSION_AUTH_CONFIGMAP, KEYS.usernameHeaders, 'lists no header');
  }
  return {
    ca: bundle(EXTENSION_AUTH_CONFIGMAP, data, KEYS.clientCa),
    allowedNames: stringList(data, KEYS.allowedNames, true),
    usernameHeaders,
    uidHeaders: headerNames(data, KEYS.uidHeaders, false),
    groupHeaders: headerNames(data, KEYS.groupHeaders, true),
    extraHeaderPrefixes: headerNames(data, KEYS.extraHeadersPrefix, true),
  };
}

/** Parses the `ca-bundle` of the Deckhouse virtualization-ca ConfigMap. */
export function parseVirtualizationCa(data: ConfigMapData): CaBundle {
  return bundle(VIRTUALIZATION_CA_CONFIGMAP, data, KEYS.caBundle);
}

/**
 * A CA (PEM, from `caFrom`) with the names its certificates must carry (from `namesFrom`); names are trimmed,
 * empty ones dropped, and a list left empty is refused. Throws KvError KV_ERR_CONFIG naming the source.
 */
export function namedTrust(
  ca: { readonly pem: string; readonly from: string },
  names: { readonly list: readonly string[]; readonly from: string },
): NamedTrust {
  const allowedNames = names.list.map((n) => n.trim()).filter((n) => n !== '');
  if (allowedNames.length === 0) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `${names.from} lists no name: the certificates of ${ca.from} are accepted only with a common name it lists`,
    );
  }
  return { ca: CaBundle.parse(ca.pem, ca.from), allowedNames, namesFrom: names.from };
}

/** The PEM bundles for the TLS server's `ca` option: the request-header CA, then the virtualization-ca. */
export function trustedCaPems(config: AuthConfig): string[] {
  const pems = [config.requestHeader.ca.pem];
  if (config.virtualization !== undefined) pems.push(config.virtualization.ca.pem);
  return pems;
}
