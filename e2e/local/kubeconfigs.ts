/**
 * Kubeconfigs of the node's and the extra control-plane components: each names the local kube-apiserver,
 * the cluster CA and that component's client certificate (file paths, so a renewed cert needs no rewrite).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KeyPair } from '../../testenv/pki.ts';

export interface ComponentKubeconfigs {
  kubelet: string;
  controllerManager: string;
  scheduler: string;
  kubeProxy: string;
}

export function componentKubeconfig(server: string, ca: string, client: KeyPair): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority': ca } }],
    users: [{ name: 'local', user: { 'client-certificate': client.cert, 'client-key': client.key } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'local' } }],
    'current-context': 'local',
  });
}

export async function writeComponentKubeconfigs(
  dir: string,
  server: string,
  ca: string,
  clients: Record<keyof ComponentKubeconfigs, KeyPair>,
): Promise<ComponentKubeconfigs> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const out: ComponentKubeconfigs = {
    kubelet: join(dir, 'kubelet.kubeconfig'),
    controllerManager: join(dir, 'kube-controller-manager.kubeconfig'),
    scheduler: join(dir, 'kube-scheduler.kubeconfig'),
    kubeProxy: join(dir, 'kube-proxy.kubeconfig'),
  };
  const keys = Object.keys(out) as (keyof ComponentKubeconfigs)[];
  await Promise.all(
    keys.map((k) => writeFile(out[k], componentKubeconfig(server, ca, clients[k]), { mode: 0o600 })),
  );
  return out;
}
