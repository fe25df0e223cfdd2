/**
 * The admission webhook configurations: the api's validator and mutator and the operator's validator of the
 * KubeVirt CR (KubeVirt's components/webhooks.go NewVirtAPIValidatingWebhookConfiguration,
 * NewVirtAPIMutatingWebhookConfiguration and NewOpertorValidatingWebhookConfiguration, named as the fork
 * names them), one webhook per registered entry of lib/kubevirt/webhooks.ts.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { internalGvr } from '../../../kubevirt/internal-gvr.ts';
import { KUBEVIRT_GROUP, KUBEVIRTS } from '../../../kubevirt/gvr.ts';
import { registeredWebhooks, type AdmissionKind, type Webhook } from '../../../kubevirt/webhooks.ts';
import { PORTS } from '../layout.ts';
import { metadataFor } from '../meta.ts';
import { SECRETS, SERVICES, WEBHOOK_CONFIGURATIONS } from '../names.ts';
import { caBundleBase64, CERTIFICATES_SECRET_ANNOTATION, type ServiceReference } from './service-ref.ts';

interface AdmissionWebhook {
  readonly name: string;
  readonly admissionReviewVersions: readonly string[];
  readonly clientConfig: {
    readonly service: ServiceReference & { readonly path: string };
    readonly caBundle: string;
  };
  readonly rules: readonly {
    readonly operations: readonly string[];
    readonly apiGroups: readonly string[];
    readonly apiVersions: readonly string[];
    readonly resources: readonly string[];
  }[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly sideEffects: 'None' | 'NoneOnDryRun';
  readonly timeoutSeconds: number;
  readonly matchConditions?: readonly { readonly name: string; readonly expression: string }[];
}

export type WebhookConfiguration = Rendered & { readonly webhooks: readonly AdmissionWebhook[] };

/** Where a configuration's webhooks are called, and the Secret whose certificate the caBundle must trust. */
interface Target {
  readonly service: string;
  readonly port: number;
  readonly certificates: string;
}

/** The api Pod's rewriter sidecar: reviews come with the stored names, the proxy restores them. */
const API: Target = { service: SERVICES.api, port: PORTS.webhookProxy, certificates: SECRETS.api };
/** The operator's Service, whose port 443 leads to its own rewriter sidecar. */
const OPERATOR: Target = {
  service: SERVICES.operatorWebhook,
  port: PORTS.https,
  certificates: SECRETS.operator,
};

const KIND: Readonly<Record<AdmissionKind, string>> = {
  validating: 'ValidatingWebhookConfiguration',
  mutating: 'MutatingWebhookConfiguration',
};

const isKubeVirtCr = (w: Webhook): boolean =>
  w.resource.group === KUBEVIRTS.group && w.resource.resource === KUBEVIRTS.resource;

/**
 * One webhook. KubeVirt gives every one of these failurePolicy Fail and a 10 s timeout and leaves matchPolicy
 * to its default, Equivalent; its rules name the kubevirt.io resource, ours the stored one that
 * kube-apiserver sees (Pods keep their names; the eviction interceptors name pods/eviction and carry their
 * match conditions and side effects). Reviews are v1 only (KubeVirt also offers v1beta1, which kube-apiserver
 * picks only when v1 is missing).
 */
function webhook(cfg: InstallConfig, w: Webhook, target: Target, caBundle: string): AdmissionWebhook {
  const stored = w.resource.group === KUBEVIRT_GROUP ? internalGvr(w.resource) : w.resource;
  const resource = w.subresource === undefined ? stored.resource : `${stored.resource}/${w.subresource}`;
  return {
    name: w.name,
    admissionReviewVersions: ['v1'],
    clientConfig: {
      service: { namespace: cfg.namespace, name: target.service, path: w.path, port: target.port },
      caBundle,
    },
    rules: [
      {
        operations: [...w.operations],
        apiGroups: [stored.group],
        apiVersions: [stored.version],
        resources: [resource],
      },
    ],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    sideEffects: w.sideEffects ?? 'None',
    timeoutSeconds: 10,
    ...(w.matchConditions !== undefined && { matchConditions: [...w.matchConditions] }),
  };
}

interface ConfigurationOptions {
  readonly name: string;
  readonly kind: AdmissionKind;
  readonly webhooks: readonly Webhook[];
  readonly target: Target;
  /** The CA bundle as PEM. */
  readonly caBundle: string;
}

function configuration(cfg: InstallConfig, o: ConfigurationOptions): WebhookConfiguration {
  const bundle = caBundleBase64(o.caBundle);
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: KIND[o.kind],
    metadata: metadataFor(cfg, {
      name: o.name,
      component: o.name,
      clusterScoped: true,
      annotations: { [CERTIFICATES_SECRET_ANNOTATION]: o.target.certificates },
    }),
    webhooks: o.webhooks.map((w) => webhook(cfg, w, o.target, bundle)),
  };
}

/** The api's validating and mutating configurations: every registered webhook but the KubeVirt CR's. */
export function apiWebhookConfigurations(cfg: InstallConfig, caBundle: string): WebhookConfiguration[] {
  const api = (name: string, kind: AdmissionKind): WebhookConfiguration => {
    const webhooks = registeredWebhooks(kind).filter((w) => !isKubeVirtCr(w));
    return configuration(cfg, { name, kind, webhooks, target: API, caBundle });
  };
  return [
    api(WEBHOOK_CONFIGURATIONS.apiValidator, 'validating'),
    api(WEBHOOK_CONFIGURATIONS.apiMutator, 'mutating'),
  ];
}

/** The operator's validating configuration: the registered KubeVirt CR webhooks. */
export function operatorWebhookConfiguration(cfg: InstallConfig, caBundle: string): WebhookConfiguration {
  const webhooks = registeredWebhooks('validating').filter(isKubeVirtCr);
  const name = WEBHOOK_CONFIGURATIONS.operatorValidator;
  return configuration(cfg, { name, kind: 'validating', webhooks, target: OPERATOR, caBundle });
}
