/**
 * Test and bench support: a ServiceAccount bound to cluster-admin and a token for it (TokenRequest), the
 * credentials a client of the rewriter's TCP port sends (it forwards no request without its own).
 */
import type { KubeClient } from '../../../kernel/kube/index.ts';

export interface AdminToken {
  readonly token: string;
  /** The user the API server sees: system:serviceaccount:<ns>:<name>. */
  readonly user: string;
  /** Deletes the ClusterRoleBinding (the ServiceAccount goes with its namespace). */
  remove(): Promise<void>;
}

const BINDINGS = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

/** Creates ServiceAccount `name` in `ns` (which must exist), binds it to cluster-admin, and asks for a token. */
export async function clusterAdminToken(client: KubeClient, ns: string, name: string): Promise<AdminToken> {
  const binding = `${ns}-${name}`;
  await client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
  });
  await client.request({
    method: 'POST',
    path: BINDINGS,
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    },
  });
  const review = await client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 7200 } },
  });
  return {
    token: review.status.token,
    user: `system:serviceaccount:${ns}:${name}`,
    remove: async (): Promise<void> => {
      await client.request({ method: 'DELETE', path: `${BINDINGS}/${binding}` });
    },
  };
}
