/**
 * The check at the end of every local-cluster test file (testing/cluster.ts calls it from release()): the
 * cluster-scoped objects are listed when the file begins and again when it ends, and a test object
 * (leftovers.ts) the file made and did not remove fails the file, named; one an earlier file or run left is
 * printed on stderr. A deletion still under way (a namespace Terminating) gets a while to finish.
 */
import { sleep } from '../../../lib/kernel/testing/wait.ts';
import type { Api, List, Obj } from '../kube.ts';
import { describeObjects, leftovers, type ClusterObject } from './leftovers.ts';

/** The cluster-scoped kinds tests make or could make, by their list paths. */
const CLUSTER_SCOPED: readonly (readonly [kind: string, path: string])[] = [
  ['Namespace', '/api/v1/namespaces'],
  ['Node', '/api/v1/nodes'],
  ['PersistentVolume', '/api/v1/persistentvolumes'],
  ['ValidatingWebhookConfiguration', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations'],
  ['MutatingWebhookConfiguration', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations'],
  ['ClusterRole', '/apis/rbac.authorization.k8s.io/v1/clusterroles'],
  ['ClusterRoleBinding', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings'],
  ['StorageClass', '/apis/storage.k8s.io/v1/storageclasses'],
  ['PriorityClass', '/apis/scheduling.k8s.io/v1/priorityclasses'],
  ['CustomResourceDefinition', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'],
  ['APIService', '/apis/apiregistration.k8s.io/v1/apiservices'],
  ['DeviceClass', '/apis/resource.k8s.io/v1/deviceclasses'],
  ['ResourceSlice', '/apis/resource.k8s.io/v1/resourceslices'],
];

type Listed = Obj & { spec?: { service?: { namespace?: string } | null } };

/** Every object of the cluster-scoped kinds, by kind, name and (APIServices) the namespace of their Service. */
export async function listClusterObjects(api: Api): Promise<ClusterObject[]> {
  const out: ClusterObject[] = [];
  for (const [kind, path] of CLUSTER_SCOPED) {
    for (const o of (await api.get<List<Listed>>(path)).items) {
      out.push({ kind, name: o.metadata?.name ?? '', serviceNamespace: o.spec?.service?.namespace });
    }
  }
  return out;
}

/**
 * Waits up to timeoutMs for the test objects made since `before` to go; prints those that were there before
 * and rejects naming those that stay.
 */
export async function checkLeftovers(
  api: Api,
  before: readonly ClusterObject[],
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let left = leftovers(before, await listClusterObjects(api));
  while (left.own.length > 0 && Date.now() < deadline) {
    await sleep(1000);
    left = leftovers(before, await listClusterObjects(api));
  }
  if (left.earlier.length > 0) {
    process.stderr.write(
      `\n!!! cluster-scoped test objects an earlier test file or run left on the local cluster:\n` +
        `${describeObjects(left.earlier)}\n\n`,
    );
  }
  if (left.own.length > 0) {
    throw new Error(`this test file left cluster-scoped objects behind:\n${describeObjects(left.own)}`);
  }
}
