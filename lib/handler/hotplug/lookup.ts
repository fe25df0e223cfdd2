/**
 * The API side of a hotplug mount: for one pass over a VMI, reads the attachment Pod its volume status names and
 * the launcher Pod that controls it (each Pod once per pass), the claim and its PersistentVolume, runs checks.ts
 * over them and answers where the claim's disk lies on the node (plan.ts), or the attachment Pod's mount of a
 * hotplugged image (which image-locator.ts finds on the node), or why it may not be mounted
 * (kubevirt pkg/virt-handler/hotplug-disk/mount.go finds the attachment Pod by the uid alone). An API error other
 * than NotFound is thrown: the pass is retried.
 */
import { APP_LABEL, LABEL_VALUES, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolume } from '../../kubevirt/core/pv.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { isNotFound, KvError } from '../../kernel/errors/errors.ts';
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, PODS } from '../../kernel/kube/index.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import { attachmentProblem, claimProblem, controllingPodName, volumeProblem } from './checks.ts';
import {
  claimSourceOnNode,
  imageOnNode,
  type ImageOnNode,
  type SourceOnNode,
  type WantedHotplug,
} from './plan.ts';

/** What the mounter reads from the API: core/v1 Pods, claims and volumes. */
export type ObjectReader = Pick<KubeClient, 'get'>;

/**
 * The name of the attachment Pod with this uid among this node's attachment Pods of the namespace (a migration
 * names the target's by uid alone); checks.ts vouches for the Pod afterwards.
 */
export async function attachmentPodName(
  client: Pick<KubeClient, 'list'>,
  at: { namespace: string; node: string; uid: string },
): Promise<string> {
  const pods = await client.list<Pod>(PODS, {
    namespace: at.namespace,
    labelSelector: `${APP_LABEL}=${LABEL_VALUES.HOTPLUG_DISK}`,
    fieldSelector: `spec.nodeName=${at.node}`,
  });
  const name = pods.items.find((p) => p.metadata.uid === at.uid)?.metadata.name;
  if (name === undefined)
    throw new KvError('KV_ERR_HOTPLUG', `attachment pod ${at.uid} not found on node ${at.node}`);
  return name;
}

export interface HotplugLookupOptions {
  readonly client: ObjectReader;
  readonly vmi: VirtualMachineInstance;
  readonly node: string;
  readonly launcherPodUid: string;
  /** The kubelet's pods dir, resolved. */
  readonly kubeletPodsDir: string;
}

async function found<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export class HotplugLookup {
  private readonly pods = new Map<string, Promise<Pod | undefined>>();
  private readonly namespace: string;

  constructor(private readonly o: HotplugLookupOptions) {
    this.namespace = o.vmi.metadata.namespace ?? '';
  }

  private pod(name: string): Promise<Pod | undefined> {
    let p = this.pods.get(name);
    if (p === undefined) {
      p = found(this.o.client.get<Pod>(PODS, name, { namespace: this.namespace }));
      this.pods.set(name, p);
    }
    return p;
  }

  /** Where the volume's disk (or image) is on the node, or why the node may not mount it. */
  async source(w: WantedHotplug): Promise<SourceOnNode | ImageOnNode | { readonly problem: string }> {
    const attachPod = await this.pod(w.attachPodName);
    const launcherName = attachPod === undefined ? undefined : controllingPodName(attachPod);
    const launcherPod = launcherName === undefined ? undefined : await this.pod(launcherName);
    const { vmi, node, launcherPodUid } = this.o;
    const attach = attachmentProblem(w, { vmi, node, launcherPodUid, attachPod, launcherPod });
    if (attach !== undefined) return { problem: attach };
    if (w.image !== undefined) return imageOnNode({ ...w, image: w.image });
    return this.claimSource(w);
  }

  /** Where a claim's disk is on the node: its PersistentVolume, checked to be the claim's own. */
  private async claimSource(w: WantedHotplug): Promise<SourceOnNode | { readonly problem: string }> {
    const pvc = await found(
      this.o.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, w.claimName, {
        namespace: this.namespace,
      }),
    );
    const claim = claimProblem(this.namespace, w.claimName, pvc);
    if (claim !== undefined || pvc === undefined) return { problem: claim ?? '' };
    const pv = await found(
      this.o.client.get<PersistentVolume>(PERSISTENT_VOLUMES, pvc.spec?.volumeName ?? ''),
    );
    const volume = volumeProblem(pvc, pv);
    if (volume !== undefined || pv === undefined) return { problem: volume ?? '' };
    return claimSourceOnNode(w, pv, this.o.kubeletPodsDir);
  }
}
