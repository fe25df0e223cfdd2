/**
 * newAttachmentPod: the Pod that attaches hotplugged claims to a VMI's node (kubevirt template.go
 * RenderHotplugAttachmentPodTemplate, tag v1.6.2), as a pure function.
 * - name hp-volume-<random> (generateName), label kubevirt.io=hotplug-disk, a controller reference to the
 *   launcher Pod (so it goes with it), required node affinity to the launcher's node, its tolerations, a
 *   grace period of 0;
 * - the emptyDir hotplug-disks at /path (HostToContainer), then per claim: a filesystem claim mounted at
 *   /path/<volume>, a block claim as the device /path/<volume>; a filesystem volume the node already has in
 *   the launcher (phase MountedToPod or Ready) is listed but not mounted again, as in KubeVirt;
 * - per hotpluggable containerDisk (the Deckhouse fork's patch 031), a Kubernetes image volume of its image,
 *   mounted read-only at /images/<volume> with the launcher Pod's pull policy and pull secret handling; the
 *   fork runs a container of the image per disk instead (the handler then finds the disk through the
 *   container's root), the image volume gives the node the same image without a second process;
 * - one container, non-root, no capabilities, KubeVirt's support-container resources (10m/2M requested).
 *
 * KubeVirt runs `/usr/bin/container-disk --copy-path /path/hp`, a small C program that holds a socket. Our
 * image's entrypoint is `virt` (Node.js, tens of MB per process), so the container runs `sleep infinity`
 * instead: coreutils is in the image's base, the process costs about a megabyte, and with a grace period of
 * 0 the kubelet kills it at once on delete. The node finds the claims through the Pod's uid (kubelet's
 * pod directories), not through a socket. The image is the launcher Pod's own (already on that node, same
 * version as the launcher), falling back to the configured launcher image.
 */
import { APP_LABEL, attachmentImageMountPath, LABEL_VALUES, NON_ROOT_UID } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { newControllerRef } from '../../kernel/controller/owner.ts';
import { COMPUTE_CONTAINER, type Container, type Pod } from '../../kubevirt/core/pod.ts';
import { claimNameOf, isBlockClaim, type ClaimLookup } from '../../kubevirt/core/pvc.ts';
import { HOTPLUG_DISKS_VOLUME } from '../../rpc/index.ts';
import { isHotplugImage, isMountedPhase } from './hotplug-volumes.ts';
import type { LauncherPodConfig } from './launcher-pod.ts';

const ATTACHMENT_POD_PREFIX = 'hp-volume-';
/** Value of the kubevirt.io label, and the container name, of attachment Pods. */
export const HOTPLUG_DISK = LABEL_VALUES.HOTPLUG_DISK;
/** Where the attachment Pod's container sees the hotplug-disks emptyDir. */
const ATTACHMENT_ROOT = '/path';
const HOLD_COMMAND: readonly string[] = ['sleep', 'infinity'];

const POD_GVK = { group: '', version: 'v1', kind: 'Pod' } as const;
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

export interface AttachmentPodInput {
  vmi: VirtualMachineInstance;
  /** The launcher Pod, read from the API (name, uid, node). */
  launcher: Pod;
  /** The hotplug volumes to attach (PVC, DataVolume or hotpluggable containerDisk). */
  volumes: readonly Volume[];
  claim: ClaimLookup;
  cfg: LauncherPodConfig;
}

/** The holding container of an attachment Pod, named name, in the launcher Pod's image, with no mounts yet. */
export function holdingContainer(name: string, launcher: Pod, cfg: LauncherPodConfig): Container {
  const image = launcher.spec.containers.find((c) => c.name === COMPUTE_CONTAINER)?.image ?? cfg.image;
  return {
    name,
    image,
    imagePullPolicy: cfg.imagePullPolicy ?? 'IfNotPresent',
    command: [...HOLD_COMMAND],
    resources: { requests: { cpu: '10m', memory: '2M' }, limits: { cpu: '100m', memory: '80M' } },
    securityContext: {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      runAsUser: NON_ROOT_UID,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'] },
    },
  };
}

function container(input: AttachmentPodInput): Container {
  const c = holdingContainer(HOTPLUG_DISK, input.launcher, input.cfg);
  c.volumeMounts = [
    { name: HOTPLUG_DISKS_VOLUME, mountPath: ATTACHMENT_ROOT, mountPropagation: 'HostToContainer' },
  ];
  return c;
}

/** Adds a containerDisk's image as a Pod volume mounted read-only, its pull secret to secrets. */
function addImage(v: Volume, volumes: Record<string, unknown>[], c: Container, secrets: string[]): void {
  const cd = v.containerDisk;
  if (cd === undefined) return;
  const pullPolicy = cd.imagePullPolicy;
  volumes.push({
    name: v.name,
    image: { reference: cd.image, ...(pullPolicy !== undefined && { pullPolicy }) },
  });
  (c.volumeMounts ??= []).push({ name: v.name, mountPath: attachmentImageMountPath(v.name), readOnly: true });
  const secret = cd.imagePullSecret ?? '';
  if (secret !== '' && !secrets.includes(secret)) secrets.push(secret);
}

/** Adds each claim or image as a Pod volume, and its mount or device to c; returns the Pod volumes. */
function addVolumes(
  input: AttachmentPodInput,
  container: Container,
  secrets: string[],
): Record<string, unknown>[] {
  const phases = new Map((input.vmi.status?.volumeStatus ?? []).map((s) => [s.name, s.phase]));
  const volumes: Record<string, unknown>[] = [{ name: HOTPLUG_DISKS_VOLUME, emptyDir: {} }];
  for (const v of input.volumes) {
    if (isHotplugImage(v)) {
      addImage(v, volumes, container, secrets);
      continue;
    }
    const claimName = claimNameOf(v);
    if (claimName === '') continue;
    volumes.push({ name: v.name, persistentVolumeClaim: { claimName } });
    const pvc = input.claim(claimName);
    if (pvc === undefined) continue;
    const path = `${ATTACHMENT_ROOT}/${v.name}`;
    if (isBlockClaim(pvc)) (container.volumeDevices ??= []).push({ name: v.name, devicePath: path });
    else if (!isMountedPhase(phases.get(v.name)))
      (container.volumeMounts ??= []).push({ name: v.name, mountPath: path });
  }
  return volumes;
}

export interface AttachmentPodShell {
  /** generateName of the Pod. */
  prefix: string;
  /** Value of its kubevirt.io label. */
  label: string;
  container: Container;
  /** Pod spec fields of this kind of attachment Pod (volumes, resourceClaims). */
  fields: Record<string, unknown>;
  /** Names of the image pull secrets. */
  secrets: readonly string[];
}

/**
 * An attachment Pod of the launcher's node: the container given, the launcher Pod as controller (so it goes
 * with it), required affinity to the launcher's node, its tolerations, a grace period of 0.
 */
export function attachmentPod(launcher: Pod, shell: AttachmentPodShell): Pod {
  const tolerations = launcher.spec['tolerations'];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: shell.prefix,
      namespace: launcher.metadata.namespace ?? '',
      labels: { [APP_LABEL]: shell.label },
      ownerReferences: [newControllerRef(launcher, POD_GVK)],
    },
    spec: {
      containers: [shell.container],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: HOSTNAME_LABEL, operator: 'In', values: [launcher.spec.nodeName ?? ''] },
                ],
              },
            ],
          },
        },
      },
      ...(Array.isArray(tolerations) && { tolerations: structuredClone(tolerations) as unknown[] }),
      ...shell.fields,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      ...(shell.secrets.length > 0 && { imagePullSecrets: shell.secrets.map((name) => ({ name })) }),
    },
  };
}

export function newAttachmentPod(input: AttachmentPodInput): Pod {
  const { launcher, cfg } = input;
  const c = container(input);
  const secrets: string[] = [];
  const volumes = addVolumes(input, c, secrets);
  if (cfg.imagePullSecret !== undefined && !secrets.includes(cfg.imagePullSecret))
    secrets.push(cfg.imagePullSecret);
  return attachmentPod(launcher, {
    prefix: ATTACHMENT_POD_PREFIX,
    label: HOTPLUG_DISK,
    container: c,
    fields: { volumes },
    secrets,
  });
}
