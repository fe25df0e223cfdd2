/**
 * Certificates of the node and of the control-plane components the testenv does not run, all signed by
 * the testenv's cluster CA (`<controlplane>/pki/ca.{crt,key}`, which kube-apiserver trusts for client
 * certs): the kubelet's client (system:node:local in system:nodes) and serving cert (the node IP on our
 * bridge), kube-apiserver's client cert for kubelets, kube-controller-manager, kube-scheduler and
 * kube-proxy. An existing complete set is reused.
 */
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { issue, type CertSpec, type KeyPair } from '../../testenv/pki.ts';
import { FIRST_NODE, type NodeSpec } from './layout.ts';

export interface NodeCerts {
  kubeletClient: KeyPair;
  kubeletServing: KeyPair;
  apiserverKubeletClient: KeyPair;
  controllerManager: KeyPair;
  scheduler: KeyPair;
  kubeProxy: KeyPair;
}

type KubeletCerts = Pick<NodeCerts, 'kubeletClient' | 'kubeletServing'>;

const kubeletLeaves = (node: NodeSpec): Record<keyof KubeletCerts, CertSpec> => ({
  kubeletClient: { o: 'system:nodes', cn: `system:node:${node.name}`, usage: 'clientAuth' },
  kubeletServing: {
    cn: node.name,
    usage: 'serverAuth',
    sans: `IP:${node.ip},IP:127.0.0.1,DNS:${node.name},DNS:localhost`,
  },
});

const LEAVES: Record<keyof NodeCerts, CertSpec> = {
  ...kubeletLeaves(FIRST_NODE),
  apiserverKubeletClient: { o: 'system:masters', cn: 'kube-apiserver-kubelet-client', usage: 'clientAuth' },
  controllerManager: { cn: 'system:kube-controller-manager', usage: 'clientAuth' },
  scheduler: { cn: 'system:kube-scheduler', usage: 'clientAuth' },
  kubeProxy: { cn: 'system:kube-proxy', usage: 'clientAuth' },
};

const NAMES: Record<keyof NodeCerts, string> = {
  kubeletClient: 'kubelet-client',
  kubeletServing: 'kubelet-serving',
  apiserverKubeletClient: 'apiserver-kubelet-client',
  controllerManager: 'kube-controller-manager',
  scheduler: 'kube-scheduler',
  kubeProxy: 'kube-proxy',
};

function nodeCertPaths(pki: string): NodeCerts {
  const pair = (k: keyof NodeCerts): KeyPair => ({
    cert: join(pki, `${NAMES[k]}.crt`),
    key: join(pki, `${NAMES[k]}.key`),
  });
  return {
    kubeletClient: pair('kubeletClient'),
    kubeletServing: pair('kubeletServing'),
    apiserverKubeletClient: pair('apiserverKubeletClient'),
    controllerManager: pair('controllerManager'),
    scheduler: pair('scheduler'),
    kubeProxy: pair('kubeProxy'),
  };
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

async function ensureSet<K extends keyof NodeCerts>(
  pki: string,
  ca: KeyPair,
  leaves: Record<K, CertSpec>,
): Promise<Record<K, KeyPair>> {
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const all = nodeCertPaths(pki);
  const keys = Object.keys(leaves) as K[];
  await Promise.all(
    keys.map(async (k) => {
      if ((await exists(all[k].cert)) && (await exists(all[k].key))) return;
      await issue(all[k], leaves[k], ca);
    }),
  );
  return Object.fromEntries(keys.map((k) => [k, all[k]])) as Record<K, KeyPair>;
}

/** Signs every missing certificate of the set with the cluster CA. */
export function ensureNodeCerts(pki: string, ca: KeyPair): Promise<NodeCerts> {
  return ensureSet(pki, ca, LEAVES);
}

/** The kubelet's client and serving certificates of another node, in that node's own pki dir. */
export function ensureKubeletCerts(pki: string, ca: KeyPair, node: NodeSpec): Promise<KubeletCerts> {
  return ensureSet(pki, ca, kubeletLeaves(node));
}
