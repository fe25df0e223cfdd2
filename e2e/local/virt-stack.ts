/**
 * The virtualization roles on the local cluster as `./dev run` runs them and the e2e scenarios meet them: the CRDs,
 * node `local` schedulable, the namespace of the api's Service and the controllers' Lease, the host roles
 * (host-roles.ts), and the api registered with kube-apiserver and answering there (virt-registration.ts).
 * `admitted` puts a namespace under the webhooks; `stopVirtStack` undoes the roles and the registration.
 */
import { readFile } from 'node:fs/promises';
import { isAlreadyExists } from '../../lib/kernel/errors/errors.ts';
import { NAMESPACES } from '../../lib/kernel/kube/index.ts';
import {
  DEV_RUN_ADMISSION,
  DEV_RUN_WEBHOOKS,
  devRunRegistration,
  startHostRoles,
  stopHostRoles,
  VIRT_NAMESPACE,
  type HostRole,
} from './host-roles.ts';
import { virtCertPaths } from './virt-pki.ts';
import { registerApi, unregisterApi } from './virt-registration.ts';
import { prepareForVirt, type VirtClients } from './virt.ts';

/** Creates the namespace (or labels it when it exists) so that the webhooks admit its objects. */
export async function admitted(c: VirtClients, ns: string): Promise<void> {
  const [key, value] = DEV_RUN_ADMISSION;
  const labels = { [key]: value };
  await c.direct
    .create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } })
    .catch(async (err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
      await c.direct.patch(NAMESPACES, ns, { metadata: { labels } }, { type: 'merge' });
    });
}

export async function startVirtStack(c: VirtClients, kubeconfig: string, dir: string): Promise<HostRole[]> {
  await prepareForVirt(c);
  await c.direct
    .create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: VIRT_NAMESPACE } })
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  const roles = await startHostRoles(kubeconfig, dir);
  await registerApi(c.direct, devRunRegistration(await readFile(virtCertPaths(dir).ca.cert, 'utf8')));
  return roles;
}

/** The roles stopped and their api unregistered (an APIService nobody serves holds up namespace deletion). */
export async function stopVirtStack(c: VirtClients, dir: string): Promise<string[]> {
  const stopped = await stopHostRoles(dir);
  await unregisterApi(c.direct, { namespace: VIRT_NAMESPACE, webhookConfig: DEV_RUN_WEBHOOKS });
  return stopped;
}
