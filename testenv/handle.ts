/**
 * What an integration test file sees of its cluster. KUBECONFIG comes from the jest global setup (our
 * own control plane) or from the user (any real cluster). KV_TESTENV_STATE, set only for our own control
 * plane, enables the destructive helpers; against an external cluster they throw.
 */
import { randomBytes } from 'node:crypto';
import { KvError } from '../lib/kernel/errors/errors.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { attachControlPlane, type ControlPlane } from './controlplane.ts';

export const KUBECONFIG_ENV = 'KUBECONFIG';
export const STATE_ENV = 'KV_TESTENV_STATE';

/**
 * A built-in resource whose watches the local API server serves straight from etcd (its watch cache is
 * off), so a watch from a compacted resourceVersion gets 410 Expired. Cached resources keep serving
 * such watches from the cache window and only answer 410 once the RV falls out of that window (or
 * after an API server restart).
 */
export const UNCACHED_RESOURCE = { group: '', version: 'v1', resource: 'podtemplates' } as const;

export interface TestEnv {
  kubeconfigPath: string;
  /** True when the cluster is our own control plane (the destructive helpers work). */
  local: boolean;
  /** Kills kube-apiserver (SIGKILL by default) and waits until it is gone. */
  killApiServer(signal?: NodeJS.Signals): Promise<void>;
  /** Starts kube-apiserver again on the same port and etcd; resolves once /readyz passes. */
  startApiServer(): Promise<void>;
  /** Compacts etcd to its current revision; returns it. */
  compactEtcd(): Promise<string>;
}

function requireEnv(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') {
    throw new KvError(
      'KV_ERR_CONFIG',
      `${name} is not set: run integration tests through jest's integration project (its global setup ` +
        'starts a control plane) or point KUBECONFIG at a cluster',
    );
  }
  return v;
}

export function testEnv(): TestEnv {
  const kubeconfigPath = requireEnv(KUBECONFIG_ENV);
  const state = process.env[STATE_ENV];
  const local = state !== undefined && state !== '';
  const control = async (op: string): Promise<ControlPlane> => {
    if (!local) {
      throw new KvError(
        'KV_ERR_CONFIG',
        `${op} needs the local test control plane, but KUBECONFIG (${kubeconfigPath}) is an external cluster`,
      );
    }
    return attachControlPlane(state, nopLogger);
  };
  return {
    kubeconfigPath,
    local,
    killApiServer: async (signal) => (await control('killApiServer')).killApiServer(signal),
    startApiServer: async () => (await control('startApiServer')).startApiServer(),
    compactEtcd: async () => (await control('compactEtcd')).compactEtcd(),
  };
}

/** A fresh DNS-1123 namespace name: `<prefix>-<8 hex>`, at most 63 characters. */
export function newNamespaceName(prefix: string): string {
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 54);
  return `${clean === '' ? 'test' : clean}-${randomBytes(4).toString('hex')}`;
}
