/**
 * How the local cluster reaches an api: an APIService for v1.subresources.kubevirt.io backed by a Service whose
 * EndpointSlice holds the api's address on the node (an APIService cannot name a URL, Endpoints refuse loopback,
 * and with --enable-aggregator-routing kube-apiserver dials the endpoint itself), and KubeVirt's admission
 * webhooks registered by URL (at the rewriter's webhook proxy, so they see kubevirt.io names), scoped to the
 * namespaces with a label, so that tests in their own namespaces never meet a webhook whose server is gone. Used by `./dev run`
 * and by the tests' api stack.
 */
import { isNotFound } from '../../lib/kernel/errors/errors.ts';
import { internalGvr } from '../../lib/kubevirt/internal-gvr.ts';
import { registeredWebhooks, type AdmissionKind } from '../../lib/kubevirt/webhooks.ts';
import type { GroupVersionResource, HttpKubeClient, KubeObject } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { NETWORK } from './layout.ts';

/** A resource by its apiVersion (`group/version`, or `v1` for the core group). */
export function gvr(
  apiVersion: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): GroupVersionResource {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group: group ?? '', version: version ?? '', resource, kind, namespaced };
}
const API_SERVICES = gvr('apiregistration.k8s.io/v1', 'apiservices', 'APIService', false);
const SERVICES = gvr('v1', 'services', 'Service', true);
const ENDPOINT_SLICES = gvr('discovery.k8s.io/v1', 'endpointslices', 'EndpointSlice', true);
const REGISTRATION = 'admissionregistration.k8s.io/v1';
const VALIDATING = gvr(
  REGISTRATION,
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
  false,
);
const MUTATING = gvr(REGISTRATION, 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false);
export const APISERVICE = 'v1.subresources.kubevirt.io';

export interface ApiRegistration {
  /** Where the Service and EndpointSlice live. */
  readonly namespace: string;
  /** The api's port on the node address. */
  readonly port: number;
  /** The CA (PEM) of the api's and the webhook proxy's serving certificates. */
  readonly caPem: string;
  /** Register the webhooks of `only` (all when undefined) at this base URL, for namespaces with the label `scope`. */
  readonly webhooks?: {
    readonly configName: string;
    readonly baseUrl: string;
    readonly scope: readonly [key: string, value: string];
    readonly only?: readonly string[];
  };
}

function webhookConfiguration(
  kind: AdmissionKind,
  w: NonNullable<ApiRegistration['webhooks']>,
  caBundle: string,
): KubeObject & { webhooks: unknown[] } {
  const hooks = registeredWebhooks(kind).filter((h) => w.only === undefined || w.only.includes(h.path));
  return {
    apiVersion: REGISTRATION,
    kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
    metadata: { name: w.configName },
    webhooks: hooks.map((h) => {
      const stored = internalGvr(h.resource);
      return {
        name: h.name,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        clientConfig: { url: `${w.baseUrl}${h.path}`, caBundle },
        namespaceSelector: { matchLabels: { [w.scope[0]]: w.scope[1] } },
        rules: [
          {
            apiGroups: [stored.group],
            apiVersions: [stored.version],
            resources: [stored.resource],
            operations: h.operations,
          },
        ],
      };
    }),
  };
}

const ignoreMissing = (err: unknown): undefined => {
  if (!isNotFound(err)) throw err;
  return undefined;
};

/**
 * Replaces whatever an earlier run registered with this api's Service, EndpointSlice, APIService and webhooks;
 * resolves once kube-apiserver serves subresources.kubevirt.io/v1 from it (the APIService Available).
 */
export async function registerApi(direct: HttpKubeClient, r: ApiRegistration): Promise<void> {
  const caBundle = Buffer.from(r.caPem).toString('base64');
  await unregisterApi(direct, { namespace: r.namespace, webhookConfig: r.webhooks?.configName });
  await direct.create(SERVICES, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'virt-api', namespace: r.namespace },
    spec: { ports: [{ name: 'https', port: 443, targetPort: r.port, protocol: 'TCP' }] },
  });
  await direct.create(ENDPOINT_SLICES, {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'virt-api-node',
      namespace: r.namespace,
      labels: { 'kubernetes.io/service-name': 'virt-api' },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [NETWORK.nodeIp], conditions: { ready: true } }],
    ports: [{ name: 'https', port: r.port, protocol: 'TCP' }],
  });
  await direct.create(API_SERVICES, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: APISERVICE },
    spec: {
      group: 'subresources.kubevirt.io',
      version: 'v1',
      service: { namespace: r.namespace, name: 'virt-api', port: 443 },
      caBundle,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
  if (r.webhooks !== undefined) {
    await direct.create(VALIDATING, webhookConfiguration('validating', r.webhooks, caBundle));
    await direct.create(MUTATING, webhookConfiguration('mutating', r.webhooks, caBundle));
  }
  const served = (): Promise<boolean> =>
    direct.request({ method: 'GET', path: '/apis/subresources.kubevirt.io/v1' }).then(
      () => true,
      () => false,
    );
  await waitFor(served, 'subresources.kubevirt.io/v1 served through kube-apiserver', {
    timeoutMs: 60_000,
    intervalMs: 500,
  });
}

/** Removes what registerApi made (missing objects are fine). */
export async function unregisterApi(
  direct: HttpKubeClient,
  r: { readonly namespace: string; readonly webhookConfig?: string | undefined },
): Promise<void> {
  await direct.delete(API_SERVICES, APISERVICE).catch(ignoreMissing);
  await direct.delete(SERVICES, 'virt-api', { namespace: r.namespace }).catch(ignoreMissing);
  await direct.delete(ENDPOINT_SLICES, 'virt-api-node', { namespace: r.namespace }).catch(ignoreMissing);
  if (r.webhookConfig === undefined) return;
  await direct.delete(VALIDATING, r.webhookConfig).catch(ignoreMissing);
  await direct.delete(MUTATING, r.webhookConfig).catch(ignoreMissing);
}
