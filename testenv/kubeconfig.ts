/**
 * The admin kubeconfig of the test control plane (certificates embedded, so the file stands alone), and
 * a small reader that turns any kubeconfig's current context into a server URL plus PEM credentials.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { KvError } from '../lib/kernel/errors/errors.ts';
import type { Credentials } from './https.ts';

const NAME = 'kubevirt-ts-testenv';

export interface AdminKubeconfig {
  server: string;
  /** PEM file paths. */
  ca: string;
  cert: string;
  key: string;
}

const b64 = async (path: string): Promise<string> => (await readFile(path)).toString('base64');

export async function writeAdminKubeconfig(path: string, k: AdminKubeconfig): Promise<void> {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: NAME, cluster: { server: k.server, 'certificate-authority-data': await b64(k.ca) } }],
    users: [
      {
        name: 'admin',
        user: { 'client-certificate-data': await b64(k.cert), 'client-key-data': await b64(k.key) },
      },
    ],
    contexts: [{ name: NAME, context: { cluster: NAME, user: 'admin', namespace: 'default' } }],
    'current-context': NAME,
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
}

type Named<T> = { name?: string } & T;
interface KubeconfigDoc {
  'current-context'?: string;
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
  clusters?: Named<{ cluster?: Record<string, string | undefined> }>[];
  users?: Named<{ user?: Record<string, string | undefined> }>[];
}

/** Embedded data wins over a file path (relative paths are relative to the kubeconfig). */
async function pem(
  entry: Record<string, string | undefined>,
  field: string,
  base: string,
): Promise<string | undefined> {
  const data = entry[`${field}-data`];
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[field];
  return file === undefined ? undefined : readFile(resolve(base, file), 'utf8');
}

function dropUndefined(c: Record<keyof Credentials, string | undefined>): Credentials {
  return Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
}

export interface ClusterAccess {
  server: string;
  creds: Credentials;
}

/** The current context's server and credentials (client cert or token); exec plugins are not supported. */
export async function readKubeconfig(path: string): Promise<ClusterAccess> {
  const doc = parse(await readFile(path, 'utf8')) as KubeconfigDoc;
  const ctx = doc.contexts?.find((c) => c.name === doc['current-context'])?.context;
  const cluster = doc.clusters?.find((c) => c.name === ctx?.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === ctx?.user)?.user ?? {};
  const server = cluster?.['server'];
  if (cluster === undefined || server === undefined) {
    throw new KvError('KV_ERR_CONFIG', `kubeconfig ${path}: current context has no cluster server`);
  }
  const base = dirname(path);
  const [ca, cert, key] = await Promise.all([
    pem(cluster, 'certificate-authority', base),
    pem(user, 'client-certificate', base),
    pem(user, 'client-key', base),
  ]);
  const creds = dropUndefined({ ca, cert, key, token: user['token'] });
  return { server: server.replace(/\/+$/, ''), creds };
}
