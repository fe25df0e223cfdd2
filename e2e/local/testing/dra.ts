/**
 * Test helpers around DRA claims on the local cluster: a ResourceClaimTemplate in a test namespace, a Pod whose
 * container uses a claim made from it, and the claim the resourceclaim controller made for that Pod, read
 * through the Pod's status (its name is generated).
 */
import { claimTemplate, RESOURCE_API, type ClaimTemplateOptions } from '../dra-objects.ts';
import type { Api, Obj } from '../kube.ts';
import { IMAGES } from '../layout.ts';
import { pod, podPath, type PodDoc } from './pods.ts';
import { waitFor } from '../../../lib/kernel/testing/wait.ts';

interface DeviceResult {
  request?: string;
  driver?: string;
  pool?: string;
  device?: string;
}

export interface ClaimDoc extends Obj {
  status?: {
    allocation?: { devices?: { results?: DeviceResult[] } };
    reservedFor?: { resource?: string; name?: string; uid?: string }[];
  };
}

type ClaimPodDoc = PodDoc & {
  status?: { resourceClaimStatuses?: { name?: string; resourceClaimName?: string }[] };
};

export const claimPath = (ns: string, name = ''): string =>
  `${RESOURCE_API}/namespaces/${ns}/resourceclaims${name === '' ? '' : `/${name}`}`;

export async function createClaimTemplate(
  api: Api,
  ns: string,
  name: string,
  o: ClaimTemplateOptions,
): Promise<void> {
  await api.create(`${RESOURCE_API}/namespaces/${ns}/resourceclaimtemplates`, claimTemplate(name, o));
}

export interface ClaimPodOptions {
  /** The Pod's name for the claim (`spec.resourceClaims[].name`), which its container uses. */
  readonly claim: string;
  readonly template: string;
  readonly command: string[];
}

/** A Pod of the project's image whose one container uses a claim made from the template. */
export function claimPod(name: string, o: ClaimPodOptions): Obj {
  const container = {
    name: 'probe',
    image: IMAGES.virt,
    command: o.command,
    resources: { claims: [{ name: o.claim }] },
  };
  return pod(name, container, {
    restartPolicy: 'Never',
    resourceClaims: [{ name: o.claim, resourceClaimTemplateName: o.template }],
  });
}

/** The name of the claim made for the Pod's `claim` entry, once the resourceclaim controller wrote it. */
export async function podClaimName(api: Api, ns: string, pod: string, claim: string): Promise<string> {
  return waitFor(
    async () => {
      const p = await api.get<ClaimPodDoc>(podPath(ns, pod));
      return p.status?.resourceClaimStatuses?.find((s) => s.name === claim)?.resourceClaimName;
    },
    `the ResourceClaim of ${ns}/${pod} ${claim}`,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}
