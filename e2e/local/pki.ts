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
import { NETWORK, NODE_NAME } from './layout.ts';

export interface NodeCerts {
  kubeletClient: KeyPair;
  kubeletServing: KeyPair;
  apiserverKubeletClient: KeyPair;
  controllerManager: KeyPair;
  scheduler: KeyPair;
  kubeProxy: KeyPair;
}

const LEAVES: Record<keyof NodeCerts, CertSpec> = {
  kubeletClient: { o: 'system:nodes', cn: `system:node:${NODE_NAME}`, usage: 'clientAuth' },
  kubeletServing: {
    cn: NODE_NAME,
    usage: 'serverAuth',
    sans: `IP:${NETWORK.nodeIp},IP:127.0.0.1,DNS:${NODE_NAME},DNS:localhost`,
  },
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

/** Signs every missing certificate of the set with the cluster CA. */
export async function ensureNodeCerts(pki: string, ca: KeyPair): Promise<NodeCerts> {
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const certs = nodeCertPaths(pki);
  const keys = Object.keys(LEAVES) as (keyof NodeCerts)[];
  await Promise.all(
    keys.map(async (k) => {
      if ((await exists(certs[k].cert)) && (await exists(certs[k].key))) return;
      await issue(certs[k], LEAVES[k], ca);
    }),
  );
  return certs;
}
