/**
 * Parses one kubeconfig file's text into its clusters, users and contexts, and merges several files the
 * way kubectl does (client-go `clientcmd/loader.go`: for a name defined twice and for current-context the
 * first file wins). Each field is type-checked: a kubeconfig is user input, so a wrong type fails with the
 * entry and field path and the type found, never the value. Relative file paths are resolved against the
 * kubeconfig's directory. Pure: the caller reads the files.
 */
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

export interface KubeconfigCluster {
  readonly name: string;
  /** Without a trailing slash. */
  readonly server: string;
  readonly caFile?: string | undefined;
  readonly caData?: string | undefined;
  readonly insecureSkipTLSVerify: boolean;
  readonly tlsServerName?: string | undefined;
  readonly proxyUrl?: string | undefined;
}

export interface KubeconfigUser {
  readonly name: string;
  readonly token?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly certData?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly keyData?: string | undefined;
  /** A way to authenticate this loader refuses (exec, auth-provider, basic auth, impersonation). */
  readonly unsupported?: string | undefined;
}

interface KubeconfigContext {
  readonly name: string;
  readonly cluster: string;
  readonly user?: string | undefined;
  readonly namespace?: string | undefined;
}

export interface Kubeconfig {
  readonly clusters: readonly KubeconfigCluster[];
  readonly users: readonly KubeconfigUser[];
  readonly contexts: readonly KubeconfigContext[];
  readonly currentContext?: string | undefined;
}

type Fields = Readonly<Record<string, unknown>>;

const isMapping = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'a mapping' : `a ${typeof v}`;
}

const wrongType = (path: string, want: string, v: unknown): Error =>
  new Error(`${path} must be ${want}, not ${typeName(v)}`);

const field = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** A string field: absent (undefined or null) or a string; "" counts as absent, as client-node treats it. */
function optString(obj: Fields, key: string, path: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw wrongType(field(path, key), 'a string', v);
  return v;
}

function required(obj: Fields, key: string, path: string): string {
  const v = optString(obj, key, path);
  if (v === undefined) throw new Error(`${field(path, key)} is missing`);
  return v;
}

function optBoolean(obj: Fields, key: string, path: string): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw wrongType(field(path, key), 'a boolean', v);
  return v;
}

/** The mapping under `key` of entry i (`clusters[0].cluster`), or missing. */
function body(entry: Fields, key: string, path: string): Fields {
  const v = entry[key];
  if (v === undefined || v === null) throw new Error(`${field(path, key)} is missing`);
  if (!isMapping(v)) throw wrongType(field(path, key), 'a mapping', v);
  return v;
}

function entries<T>(doc: Fields, key: string, read: (entry: Fields, path: string) => T): T[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw wrongType(key, 'a list', list);
  return list.map((entry: unknown, i) => {
    const path = `${key}[${i}]`;
    if (!isMapping(entry)) throw wrongType(path, 'a mapping', entry);
    return read(entry, path);
  });
}

const absolute = (dir: string, file: string | undefined): string | undefined =>
  file === undefined || isAbsolute(file) ? file : join(dir, file);

function readCluster(dir: string): (entry: Fields, path: string) => KubeconfigCluster {
  return (entry, path) => {
    const name = required(entry, 'name', path);
    const c = body(entry, 'cluster', path);
    const at = `${path}.cluster`;
    return {
      name,
      server: required(c, 'server', at).replace(/\/$/, ''),
      caFile: absolute(dir, optString(c, 'certificate-authority', at)),
      caData: optString(c, 'certificate-authority-data', at),
      insecureSkipTLSVerify: optBoolean(c, 'insecure-skip-tls-verify', at),
      tlsServerName: optString(c, 'tls-server-name', at),
      proxyUrl: optString(c, 'proxy-url', at),
    };
  };
}

/** What the user authenticates with that is refused; only its presence is looked at. */
function unsupportedAuth(u: Fields): string | undefined {
  const set = (key: string): boolean => u[key] !== undefined && u[key] !== null && u[key] !== '';
  if (set('exec')) return 'exec credential plugins';
  if (set('username') || set('password')) return 'basic auth (username/password)';
  if (set('as')) return 'impersonation (as)';
  if (set('auth-provider')) return 'an auth-provider';
  return undefined;
}

function readUser(dir: string): (entry: Fields, path: string) => KubeconfigUser {
  return (entry, path) => {
    const name = required(entry, 'name', path);
    const raw = entry['user'];
    const u = raw === undefined || raw === null ? {} : body(entry, 'user', path);
    const at = `${path}.user`;
    return {
      name,
      token: optString(u, 'token', at),
      tokenFile: absolute(dir, optString(u, 'token-file', at)),
      certFile: absolute(dir, optString(u, 'client-certificate', at)),
      certData: optString(u, 'client-certificate-data', at),
      keyFile: absolute(dir, optString(u, 'client-key', at)),
      keyData: optString(u, 'client-key-data', at),
      unsupported: unsupportedAuth(u),
    };
  };
}

function readContext(entry: Fields, path: string): KubeconfigContext {
  const name = required(entry, 'name', path);
  const c = body(entry, 'context', path);
  const at = `${path}.context`;
  return {
    name,
    cluster: required(c, 'cluster', at),
    user: optString(c, 'user', at),
    namespace: optString(c, 'namespace', at),
  };
}

/**
 * The kubeconfig in `text`, whose file lies in `dir`. Throws the `yaml` package's YAMLParseError for bad
 * YAML, and an Error whose message is a field path and a type name for a wrong entry. A document that is
 * not a mapping (empty, a bare word) holds nothing.
 */
export function parseKubeconfig(text: string, dir: string): Kubeconfig {
  const doc: unknown = parse(text, { logLevel: 'error' });
  if (!isMapping(doc)) return { clusters: [], users: [], contexts: [] };
  return {
    clusters: entries(doc, 'clusters', readCluster(dir)),
    users: entries(doc, 'users', readUser(dir)),
    contexts: entries(doc, 'contexts', readContext),
    currentContext: optString(doc, 'current-context', ''),
  };
}

function firstWins<T extends { readonly name: string }>(into: readonly T[], from: readonly T[]): T[] {
  return [...into, ...from.filter((x) => !into.some((y) => y.name === x.name))];
}

/** `into` with what `from` adds: names `into` lacks, and its current-context if `into` has none. */
export function mergeKubeconfigs(into: Kubeconfig, from: Kubeconfig): Kubeconfig {
  return {
    clusters: firstWins(into.clusters, from.clusters),
    users: firstWins(into.users, from.users),
    contexts: firstWins(into.contexts, from.contexts),
    currentContext: into.currentContext ?? from.currentContext,
  };
}

/** The first entry of that name (a name defined twice in one file: the first one, as client-node does). */
export function findNamed<T extends { readonly name: string }>(
  list: readonly T[],
  name: string | undefined,
): T | undefined {
  return name === undefined ? undefined : list.find((x) => x.name === name);
}
