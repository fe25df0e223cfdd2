/**
 * Test helpers for the local cluster: a namespace per test file (ready once its `default` ServiceAccount
 * exists, which kube-controller-manager makes), Pods from the local images, waits on Pod conditions and
 * phases, and logs.
 */
import { KvError } from '../../../lib/kernel/errors/errors.ts';
import type { Api, Obj } from '../kube.ts';
import { waitFor } from '../../../lib/kernel/testing/wait.ts';

export interface PodDoc extends Obj {
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type?: string; status?: string }[];
    containerStatuses?: { containerID?: string; restartCount?: number; state?: Record<string, unknown> }[];
  };
}

export async function createNamespace(api: Api, name: string): Promise<void> {
  await api.create('/api/v1/namespaces', { metadata: { name } });
  await waitFor(
    () => api.find(`/api/v1/namespaces/${name}/serviceaccounts/default`),
    `ServiceAccount default in ${name}`,
  );
}

export async function deleteNamespace(api: Api, name: string): Promise<void> {
  await api.remove(`/api/v1/namespaces/${name}`);
}

export const podPath = (ns: string, name = ''): string =>
  `/api/v1/namespaces/${ns}/pods${name === '' ? '' : `/${name}`}`;

export async function createPod(api: Api, ns: string, pod: Obj): Promise<PodDoc> {
  return api.create<PodDoc>(podPath(ns), pod);
}

function isReady(p: PodDoc | undefined): boolean {
  return p?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

export async function waitReady(api: Api, ns: string, name: string, timeoutMs = 90_000): Promise<PodDoc> {
  return waitFor(
    async () => {
      const p = await api.get<PodDoc>(podPath(ns, name));
      return isReady(p) ? p : undefined;
    },
    `pod ${ns}/${name} Ready`,
    { timeoutMs: timeoutMs },
  );
}

/** Waits for Succeeded; a Failed pod fails at once (with its logs). */
export async function waitSucceeded(
  api: Api,
  ns: string,
  name: string,
  timeoutMs = 120_000,
): Promise<PodDoc> {
  return waitFor(
    async () => {
      const p = await api.get<PodDoc>(podPath(ns, name));
      if (p.status?.phase === 'Failed') {
        const text = await logs(api, ns, name).catch(() => '');
        throw new KvError('KV_ERR_INVALID', `pod ${ns}/${name} failed: ${text}`);
      }
      return p.status?.phase === 'Succeeded' ? p : undefined;
    },
    `pod ${ns}/${name} Succeeded`,
    { timeoutMs: timeoutMs },
  );
}

export async function logs(api: Api, ns: string, name: string): Promise<string> {
  return api.text(`${podPath(ns, name)}/log`);
}

export interface ContainerSpec {
  name: string;
  image: string;
  command: string[];
  volumeMounts?: Record<string, unknown>[];
  ports?: Record<string, unknown>[];
  resources?: Record<string, unknown>;
}

/** A Pod of one container with imagePullPolicy Never (the images are imported, there is no registry). */
export function pod(name: string, c: ContainerSpec, extra: Record<string, unknown> = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ imagePullPolicy: 'Never', ...c }],
      ...extra,
    },
  };
}
