/**
 * Which cluster-scoped objects the local-cluster tests left behind (pure). The rule follows how tests name what
 * they make: a namespace is `<prefix>-<8 hex>` (testenv/handle.ts newNamespaceName), or that name with a
 * suffix (`<ns>-b`, `<ns>-victim`); any other cluster-scoped object a test makes is named `kvts-…`
 * (`kvts-api-test-<ns>` webhook configurations, `kvts-own-<hex>` volumes); and the one APIService
 * (`v1.subresources.kubevirt.io`) is a test's while its Service is in a test namespace. The cluster's own
 * objects (`default`, `kube-*`, `kubevirt-ts`, the `local` StorageClass and its `local-pv-*` pool, the CRDs,
 * the `kubevirt-ts-dev-run` webhooks) match none of these.
 */

export interface ClusterObject {
  readonly kind: string;
  readonly name: string;
  /** The namespace of the Service an APIService sends to, when it names one. */
  readonly serviceNamespace?: string | undefined;
}

/** The prefix of every cluster-scoped object but a namespace that a test makes. */
const TEST_OBJECT_PREFIX = 'kvts-';

const TEST_NAMESPACE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?-[0-9a-f]{8}(-[a-z0-9]+)*$/;

/** A name newNamespaceName gives, or one with a suffix. */
export const isTestNamespaceName = (name: string): boolean => name.length <= 63 && TEST_NAMESPACE.test(name);

/** Whether a test made the object and it should be gone by now. */
export function isTestObject(o: ClusterObject): boolean {
  if (o.kind === 'Namespace') return isTestNamespaceName(o.name);
  if (o.name.startsWith(TEST_OBJECT_PREFIX)) return true;
  return o.serviceNamespace !== undefined && isTestNamespaceName(o.serviceNamespace);
}

/** Kind, name and (an APIService sent to another namespace since is another registration) the Service's namespace. */
const key = (o: ClusterObject): string => `${o.kind}/${o.name}/${o.serviceNamespace ?? ''}`;

export interface Leftovers {
  /** Test objects that were not there when the file began: the file's own. */
  readonly own: ClusterObject[];
  /** Test objects that were there already (an earlier file or run left them). */
  readonly earlier: ClusterObject[];
}

/** The test objects of `after`, split by whether `before` (the objects when the file began) had them. */
export function leftovers(before: readonly ClusterObject[], after: readonly ClusterObject[]): Leftovers {
  const had = new Set(before.filter(isTestObject).map(key));
  const left = after.filter(isTestObject);
  return { own: left.filter((o) => !had.has(key(o))), earlier: left.filter((o) => had.has(key(o))) };
}

/** One line per object, sorted: `Kind name`, and where an APIService sends to. */
export const describeObjects = (objects: readonly ClusterObject[]): string =>
  objects
    .map(
      (o) =>
        `${o.kind} ${o.name}${o.serviceNamespace === undefined ? '' : ` (Service in ${o.serviceNamespace})`}`,
    )
    .sort()
    .join('\n');
