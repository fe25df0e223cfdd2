/**
 * Where the client configuration comes from, in the order controller-runtime uses: an explicit kubeconfig
 * path, then $KUBECONFIG (a path list), then the pod's service account, then ~/.kube/config. Pure apart from
 * the injected `exists` check.
 */
import { delimiter, join } from 'node:path';
import { KvError } from '../errors/errors.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export type ConfigSource =
  | { kind: 'kubeconfig'; files: string[]; origin: 'flag' | 'env' | 'home' }
  | { kind: 'in-cluster'; host: string; port: string; serviceAccountDir: string };

export interface SourceInput {
  kubeconfig?: string | undefined;
  /** true: only in-cluster; false: never in-cluster; undefined: in-cluster when it is available. */
  inCluster?: boolean | undefined;
  serviceAccountDir?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  exists: (path: string) => boolean;
}

export function chooseConfigSource(input: SourceInput): ConfigSource {
  const { env, exists } = input;
  const saDir = input.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (input.inCluster === true) return inClusterSource(env, saDir, exists, true) as ConfigSource;
  if (input.kubeconfig) return { kind: 'kubeconfig', files: [input.kubeconfig], origin: 'flag' };
  const fromEnv = envKubeconfig(env, exists);
  if (fromEnv) return fromEnv;
  if (input.inCluster !== false) {
    const inCluster = inClusterSource(env, saDir, exists, false);
    if (inCluster) return inCluster;
  }
  const home = env['HOME'];
  const homeConfig = home ? join(home, '.kube', 'config') : undefined;
  if (homeConfig && exists(homeConfig)) return { kind: 'kubeconfig', files: [homeConfig], origin: 'home' };
  throw new KvError(
    'KV_ERR_CONFIG',
    'no Kubernetes client configuration found: pass --kubeconfig <file>, set KUBECONFIG, run in a pod with a ' +
      `service account (KUBERNETES_SERVICE_HOST and ${join(saDir, 'token')}), or create ` +
      (homeConfig ?? '~/.kube/config'),
  );
}

function envKubeconfig(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean,
): ConfigSource | undefined {
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (listed.length === 0) return undefined;
  const present = listed.filter(exists);
  if (present.length === 0) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `none of the files in KUBECONFIG exists (${listed.join(delimiter)}): fix KUBECONFIG or pass --kubeconfig`,
    );
  }
  return { kind: 'kubeconfig', files: present, origin: 'env' };
}

function inClusterSource(
  env: Readonly<Record<string, string | undefined>>,
  saDir: string,
  exists: (path: string) => boolean,
  required: boolean,
): ConfigSource | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
  const token = join(saDir, 'token');
  const problem = !host
    ? 'KUBERNETES_SERVICE_HOST is not set'
    : !exists(token)
      ? `the service-account token ${token} does not exist`
      : undefined;
  if (problem === undefined && host) return { kind: 'in-cluster', host, port, serviceAccountDir: saDir };
  if (!required) return undefined;
  throw new KvError(
    'KV_ERR_CONFIG',
    `in-cluster configuration requested but ${problem ?? 'unavailable'}: run inside a pod with a service account, ` +
      'or drop the in-cluster option and pass --kubeconfig',
  );
}
