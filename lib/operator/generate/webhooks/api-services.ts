/**
 * The APIServices that make kube-apiserver serve subresources.kubevirt.io from virt-api (KubeVirt's
 * components/apiservices.go NewVirtAPIAPIServices): one per version KubeVirt serves, v1 first. Deckhouse's
 * fork deletes them: its virtualization-api calls the virt-api Service itself with a client certificate of
 * the virtualization CA, so in `deckhouse` mode there are none.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { SUBRESOURCES_GROUP, SUBRESOURCES_VERSION } from '../../../kubevirt/gvr.ts';
import { PORTS } from '../layout.ts';
import { metadataFor } from '../meta.ts';
import { SECRETS, SERVICES } from '../names.ts';
import { caBundleBase64, CERTIFICATES_SECRET_ANNOTATION, type ServiceReference } from './service-ref.ts';

export type ApiService = Rendered & {
  readonly spec: {
    readonly service: ServiceReference;
    readonly group: string;
    readonly version: string;
    readonly caBundle: string;
    readonly groupPriorityMinimum: number;
    readonly versionPriority: number;
  };
};

/** KubeVirt's SubresourceGroupVersions. */
const VERSIONS: readonly string[] = [SUBRESOURCES_VERSION, 'v1alpha3'];

export function apiServices(cfg: InstallConfig, caBundle: string): ApiService[] {
  if (cfg.mode === 'deckhouse') return [];
  const bundle = caBundleBase64(caBundle);
  return VERSIONS.map((version) => ({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: metadataFor(cfg, {
      name: `${version}.${SUBRESOURCES_GROUP}`,
      component: 'virt-api-aggregator',
      clusterScoped: true,
      annotations: { [CERTIFICATES_SECRET_ANNOTATION]: SECRETS.api },
    }),
    spec: {
      service: { namespace: cfg.namespace, name: SERVICES.api, port: PORTS.https },
      group: SUBRESOURCES_GROUP,
      version,
      caBundle: bundle,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  }));
}
