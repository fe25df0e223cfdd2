/**
 * The virtualization roles installed on the local cluster as Deckhouse installs them: the CRDs, the operator's
 * namespace, RBAC and Deployment (the same generators as manifests/, the local image, pulled never), then one
 * KubeVirt resource from which the operator installs the rest. The resource asks for emulation (KVM does not work
 * here) and adapts the handler to this node with customizeComponents, as Deckhouse adapts it to its nodes: the
 * kubelet's root is the stack's, the node-labeller and share dirs stay inside the stack, the device-plugin dir is
 * the kubelet's own, and the local PersistentVolumes' directory and containerd's image volumes are visible to
 * it for hotplug. `uninstallVirt`
 * deletes the resource (the operator removes what it made) and then the operator.
 */
import { isAlreadyExists, isNotFound, StatusError } from '../../lib/kernel/errors/errors.ts';
import { NAMESPACES } from '../../lib/kernel/kube/index.ts';
import type { GroupVersionResource, KubeObject } from '../../lib/kernel/kube/types.ts';
import { sleep, waitFor } from '../../lib/kernel/testing/wait.ts';
import { KUBEVIRTS, type KubeVirt } from '../../lib/kubevirt/index.ts';
import { installedKind } from '../../lib/operator/apply/kinds.ts';
import {
  kubevirtResource,
  operatorInstall,
  storedForm,
} from '../../lib/operator/generate/operator-install.ts';
import { IMAGES, imageVolumesDir, layout, NODE_NAME, type Layout } from './layout.ts';
import { dirname, join } from 'node:path';
import { run } from './exec.ts';
import { readLocalState } from './state.ts';
import { virtContentTag } from './up-node.ts';
import { prepareForVirt, type VirtClients } from './virt.ts';

/** The install namespace (Deckhouse's). */
export const VIRT_NAMESPACE = 'd8-virtualization';
const FIELD_MANAGER = 'kubevirt-ts-local';

const DEVICE_PLUGINS = '/var/lib/kubelet/device-plugins';

/**
 * The handler DaemonSet adapted to this node (strategic merge: volumes by name, mounts by path): the image
 * volumes come from this node's containerd state dir, mounted where the DaemonSet mounts containerd's default.
 */
function handlerPatch(L: Layout): string {
  const volumes = [
    { name: 'kubelet', hostPath: { path: L.kubelet.root } },
    { name: 'node-labeller', hostPath: { path: `${L.dir}/node-labeller`, type: 'DirectoryOrCreate' } },
    { name: 'virt-share-dir', hostPath: { path: `${L.dir}/run-kubevirt`, type: 'DirectoryOrCreate' } },
    { name: 'device-plugins', hostPath: { path: DEVICE_PLUGINS, type: 'DirectoryOrCreate' } },
    { name: 'local-pv', hostPath: { path: L.pv } },
    { name: 'image-volumes', hostPath: { path: imageVolumesDir(L) } },
  ];
  const mounts = [
    { name: 'device-plugins', mountPath: DEVICE_PLUGINS },
    { name: 'local-pv', mountPath: L.pv },
  ];
  return JSON.stringify({
    spec: {
      template: { spec: { volumes, containers: [{ name: 'virt-handler', volumeMounts: mounts }] } },
    },
  });
}

const ON_FIRST_NODE = { 'kubernetes.io/hostname': NODE_NAME };

/** The KubeVirt resource of the local cluster. */
export function localKubeVirt(dir?: string): KubeVirt {
  const L = layout(dir);
  return kubevirtResource(VIRT_NAMESPACE, {
    imagePullPolicy: 'Never',
    configuration: { developerConfiguration: { useEmulation: true } },
    // The control plane's Pods stay on node `local` (Deckhouse keeps them on its system nodes): Pods of `local`
    // reach a Service's endpoints on the second node only through the host, which forwards nothing.
    infra: { nodePlacement: { nodeSelector: ON_FIRST_NODE } },
    customizeComponents: {
      patches: [
        {
          resourceType: 'DaemonSet',
          resourceName: 'virt-handler',
          type: 'strategic',
          patch: handlerPatch(L),
        },
      ],
    },
  });
}

async function apply(c: VirtClients, gvr: GroupVersionResource, obj: KubeObject): Promise<void> {
  const { name = '', namespace } = obj.metadata;
  await c.direct.patch(gvr, name, obj, {
    type: 'apply',
    force: true,
    fieldManager: FIELD_MANAGER,
    ...(gvr.namespaced && namespace !== undefined && { namespace }),
  });
}

/** The operator's Deployment kept on node `local`, as the KubeVirt resource keeps the roles' (infra). */
function onFirstNode<T extends KubeObject>(d: T): T {
  const spec = (d as { spec?: { template?: { spec?: Record<string, unknown> } } }).spec;
  const pod = spec?.template?.spec;
  if (pod !== undefined)
    pod['nodeSelector'] = { ...(pod['nodeSelector'] as object | undefined), ...ON_FIRST_NODE };
  return d;
}

function operatorObjects(image: string = IMAGES.virt): { gvr: GroupVersionResource; obj: KubeObject }[] {
  return operatorInstall({
    namespace: VIRT_NAMESPACE,
    image,
    mode: 'kubevirt',
    imagePullPolicy: 'Never',
    replicas: 1,
  }).map((o) => ({
    gvr: o.kind === 'Namespace' ? NAMESPACES : installedKind(o.apiVersion, o.kind),
    obj: storedForm(o.kind === 'Deployment' ? onFirstNode(o) : o),
  }));
}

/** The project image under its content tag: a rebuilt image is a new tag, which the operator rolls the roles over to. */
async function operatorImage(dir?: string): Promise<string> {
  const images = (await readLocalState(layout(dir).state))?.images ?? [];
  return virtContentTag(images) ?? IMAGES.virt;
}

/**
 * Runs a call the operator's webhook admits, again while that webhook cannot be reached: a cluster brought up
 * again over an install starts the operator's Pod a little after the API server.
 */
async function admitted<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const unreachable =
        err instanceof StatusError && err.status.message?.includes('failed calling webhook');
      if (unreachable !== true || Date.now() > deadline) throw err;
      await sleep(1000);
    }
  }
}

const condition = (kv: KubeVirt | undefined, type: string): string | undefined =>
  kv?.status?.conditions?.find((x) => x.type === type)?.status;

/** Installs (or brings up to date) and resolves once the KubeVirt resource is Available. */
export async function installVirt(
  c: VirtClients,
  o: {
    dir?: string;
    timeoutMs?: number;
    progress?: (line: string) => void;
    /** The operator's image (default: the project image under its content tag). */
    image?: string;
  } = {},
): Promise<KubeVirt> {
  await prepareForVirt(c);
  const image = o.image ?? (await operatorImage(o.dir));
  // The operator reports the version it installed: its image's tag.
  const version = image.slice(image.lastIndexOf(':') + 1);
  for (const { gvr, obj } of operatorObjects(image)) await apply(c, gvr, obj);
  const kv = localKubeVirt(o.dir);
  await admitted(
    () =>
      c.kv.patch(KUBEVIRTS, kv.metadata.name ?? '', kv, {
        type: 'apply',
        force: true,
        fieldManager: FIELD_MANAGER,
        namespace: VIRT_NAMESPACE,
      }),
    o.timeoutMs ?? 300_000,
  );
  let last = '';
  return waitFor(
    async () => {
      const now = await c.kv.get<KubeVirt>(KUBEVIRTS, kv.metadata.name ?? '', { namespace: VIRT_NAMESPACE });
      const line = describeKubeVirt(now);
      if (line !== last) o.progress?.(line);
      last = line;
      const done = condition(now, 'Available') === 'True' && condition(now, 'Progressing') === 'False';
      return done && now.status?.observedKubeVirtVersion === version && now;
    },
    'the KubeVirt resource to be Available',
    { timeoutMs: o.timeoutMs ?? 300_000, intervalMs: 1000 },
  );
}

/** `KubeVirt <phase> at <observed version>: Type=Status (Reason), …`. */
export function describeKubeVirt(kv: KubeVirt): string {
  const conditions = (kv.status?.conditions ?? []).map(
    (x) => `${x.type}=${x.status}${x.reason === undefined ? '' : ` (${x.reason})`}`,
  );
  const at = kv.status?.observedKubeVirtVersion ?? 'none';
  return `KubeVirt ${kv.status?.phase ?? 'no phase yet'} at ${at}: ${conditions.join(', ')}`;
}

/** The project image as containerd holds it, also under `tag` (a new version for the operator to roll out). */
export async function tagVirtImage(tag: string, dir?: string): Promise<string> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  const ctr =
    s?.processes.containerd === undefined ? undefined : join(dirname(s.processes.containerd.bin), 'ctr');
  if (ctr === undefined) throw new Error(`no containerd in ${L.state}`);
  const name = `${IMAGES.virt.replace(/:.*$/, '')}:${tag}`;
  await run(ctr, [
    '--address',
    L.containerd.socket,
    '--namespace',
    'k8s.io',
    'images',
    'tag',
    '--force',
    IMAGES.virt,
    name,
  ]);
  return name;
}

/** Whether the local KubeVirt resource is there and Available. */
export async function kubevirtAvailable(c: VirtClients): Promise<boolean> {
  const name = localKubeVirt().metadata.name ?? '';
  const kv = await c.kv.get<KubeVirt>(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE }).catch(() => undefined);
  return condition(kv, 'Available') === 'True';
}

/** The namespace, made when it does not exist (the webhooks admit every namespace). */
export async function ensureNamespace(c: VirtClients, ns: string): Promise<void> {
  await c.direct
    .create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
}

/** Whether the operator or its KubeVirt resource is there (a whole or partial install). */
export async function virtInstalled(c: VirtClients): Promise<boolean> {
  const found = (p: Promise<unknown>): Promise<boolean> =>
    p.then(
      () => true,
      (err: unknown) => (isNotFound(err) ? false : Promise.reject(err as Error)),
    );
  const name = localKubeVirt().metadata.name ?? '';
  const operator = operatorObjects().find((o) => o.gvr.kind === 'Deployment');
  return (
    (await found(c.kv.get(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE }))) ||
    (operator !== undefined &&
      (await found(
        c.direct.get(operator.gvr, operator.obj.metadata.name ?? '', { namespace: VIRT_NAMESPACE }),
      )))
  );
}

/**
 * Deletes the KubeVirt resource, waits until the operator has removed everything, then removes the operator. The
 * operator is first brought to the image the cluster holds now: an install left by an earlier build (the cluster
 * brought up again after a rebuild) has an operator whose image is gone, which could neither admit the deletion
 * nor remove what it made.
 */
export async function uninstallVirt(
  c: VirtClients,
  o: { dir?: string; timeoutMs?: number } = {},
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 180_000;
  for (const { gvr, obj } of operatorObjects(await operatorImage(o.dir))) await apply(c, gvr, obj);
  const name = localKubeVirt().metadata.name ?? '';
  await admitted(() => c.kv.delete(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE }), timeoutMs).catch(
    (err: unknown) => {
      if (!isNotFound(err)) throw err;
    },
  );
  await waitFor(
    () =>
      c.kv.get(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE }).then(
        () => false,
        (err: unknown) => isNotFound(err),
      ),
    'the KubeVirt resource to be gone',
    { timeoutMs, intervalMs: 1000 },
  );
  for (const { gvr, obj } of operatorObjects().reverse()) {
    if (gvr === NAMESPACES) continue;
    const { name: n = '', namespace } = obj.metadata;
    await c.direct
      .delete(gvr, n, { ...(gvr.namespaced && namespace !== undefined && { namespace }) })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
}
