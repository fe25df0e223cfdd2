/**
 * newLauncherPod(vmi, cfg): the Pod that runs a VMI (kubevirt template.go RenderLaunchManifest, tag v1.6.2),
 * as a pure function. One compute container runs the image's `virt launcher` with the VMI's name, namespace
 * and uid, its grace period (+15 s so the node stops the guest first), the emulation mode and the path root.
 * The VMI's labels and annotations (launcherPodLabels, copiedAnnotations), nodeSelector
 * kubevirt.io/schedulable=true plus the VMI's, its tolerations, affinity, scheduler and priority, restart policy
 * Never, and a controller reference to the VMI. The VMI's readiness and liveness probes go onto the compute
 * container (probes.ts).
 *
 * The Pod's name is deterministic (virt-launcher-<vmi>-<5 hex of the VMI uid>) where KubeVirt uses
 * generateName: a second create for the same VMI then fails with AlreadyExists instead of making a twin.
 * Not rendered (yet): hook sidecars, the virtual-machine-unpaused readiness gate, network
 * attachment annotations, SELinux and seccomp settings.
 */
import { createHash } from 'node:crypto';
import {
  ANNOTATIONS,
  APP_LABEL,
  KUBEVIRT_GROUP,
  KUBEVIRT_VERSION,
  LABEL_VALUES,
  LABELS,
  NON_ROOT_UID,
  terminationGracePeriodSeconds,
} from '../../kubevirt/index.ts';
import type { PodResourceClaim, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { newControllerRef } from '../../kernel/controller/owner.ts';
import { COMPUTE_CONTAINER, type Container, type Pod } from '../../kubevirt/core/pod.ts';
import type { OverheadOptions } from './overhead.ts';
import { DEFAULT_CPU_ALLOCATION_RATIO, launcherResources } from './pod-resources.ts';
import { launcherVolumes, type RenderedVolumes } from './pod-volumes.ts';
import { launcherProbes } from './probes.ts';
import { virtiofsContainers } from './virtiofs-containers.ts';

export const VMI_GVK = {
  group: KUBEVIRT_GROUP,
  version: KUBEVIRT_VERSION,
  kind: 'VirtualMachineInstance',
} as const;

export interface LauncherPodConfig {
  /** The image holding the `virt` binary. */
  image: string;
  imagePullPolicy?: string;
  /**
   * Program and subcommand of the launcher (default DEFAULT_LAUNCHER_COMMAND). The command replaces the image's
   * entrypoint, so it starts with the image's reaper: libvirt stalls on unreaped children otherwise.
   */
  command?: readonly string[];
  /** Program and subcommand the guestAgentPing and exec probes run in the compute container (probes.ts default). */
  probeCommand?: readonly string[];
  /** Allow TCG: `--emulation auto` and no kvm/vhost-net device; otherwise `--emulation off` and both requested. */
  allowEmulation?: boolean;
  /** Run the launcher as root (KubeVirt's Root feature gate); otherwise as uid 107. */
  root?: boolean;
  /** --root of the launcher: the prefix of its paths ('/' in a Pod). */
  launcherRoot?: string;
  /** vCPUs per requested core when the VMI asks for no CPU (default 10: 1 vCPU → 100m). */
  cpuAllocationRatio?: number;
  /** Cluster-wide node selector, merged under the VMI's own. */
  nodeSelector?: Readonly<Record<string, string>>;
  imagePullSecret?: string;
  overhead?: OverheadOptions;
  /** The KubeVirt CR's permittedHostDevices resource names, when it sets them (read at each render). */
  permittedHostDevices?: ReadonlySet<string> | undefined;
  /**
   * The image's unprivileged virtiofsd (IMAGE_VIRTIOFSD in this project's image): with it a VMI's filesystems
   * get their virtiofsd containers and socket volume (virtiofs-containers.ts); without it neither, and the
   * launcher refuses the filesystems.
   */
  virtiofsd?: string | undefined;
}

/** tini as PID 1 (the image's entrypoint, which a Pod's command replaces), then `virt launcher`. */
const DEFAULT_LAUNCHER_COMMAND: readonly string[] = ['/usr/bin/tini', '--', 'virt', 'launcher'];

/** Seconds between the VMI's grace period and the launcher's, and between the launcher's and the Pod's. */
const GRACE_PADDING_SECONDS = 15;
const MAX_NAME = 63;

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 5);
}

function trimName(s: string, max: number): string {
  return s.slice(0, max).replace(/[-.]+$/, '');
}

/** Annotation key prefixes of a VMI that stay off its launcher Pod (template.go filterVMIAnnotationsForPod). */
const NOT_COPIED = [
  'kubectl.kubernetes.io',
  'kubevirt.io/storage-observed-api-version',
  'kubevirt.io/latest-observed-api-version',
];

/**
 * The VMI's annotations KubeVirt copies onto its launcher Pod: all but kubectl's and the API version marks, so
 * what Deckhouse puts on a VMI for the Pod (`cni.cilium.io/ipAddress`, `network.deckhouse.io/networks-spec`, …)
 * reaches the CNI.
 */
function copiedAnnotations(vmi: VirtualMachineInstance): Record<string, string> {
  return Object.fromEntries(
    Object.entries(vmi.metadata.annotations ?? {}).filter(([k]) => !NOT_COPIED.some((p) => k.startsWith(p))),
  );
}

/**
 * Every label of the VMI, then three set over whatever the VMI says (template.go podLabels):
 * kubevirt.io=virt-launcher, kubevirt.io/created-by=<VMI uid> and vm.kubevirt.io/name=<the Pod's hostname>.
 * What Deckhouse puts on a VMI for its Pod (`security.deckhouse.io/skip-pss-check`,
 * `pod.deckhouse.io/inhibit-node-shutdown`, the quota discounts, the VM's own labels) reaches it this way.
 */
function launcherPodLabels(vmi: VirtualMachineInstance, hostname: string): Record<string, string> {
  return {
    ...vmi.metadata.labels,
    [APP_LABEL]: LABEL_VALUES.LAUNCHER,
    [LABELS.CREATED_BY]: vmi.metadata.uid ?? '',
    [LABELS.VM_NAME]: hostname,
  };
}

/** virt-launcher-<vmi name, cut so the whole fits in 63>-<5 hex of the VMI uid>. */
export function launcherPodName(vmi: Pick<VirtualMachineInstance, 'metadata'>): string {
  const prefix = 'virt-launcher-';
  const name = trimName(vmi.metadata.name ?? '', MAX_NAME - prefix.length - 6);
  return `${prefix}${name}-${shortHash(vmi.metadata.uid ?? '')}`;
}

/**
 * spec.hostname as given (admission holds it to a DNS label), else the VMI name up to its first dot, at most
 * 63 characters (kubevirt dns.SanitizeHostname): the guest's cloud-init hostname is the same.
 */
export function launcherHostname(vmi: VirtualMachineInstance): string {
  const given = vmi.spec.hostname ?? '';
  if (given !== '') return given;
  return (vmi.metadata.name ?? '').split('.')[0]?.slice(0, MAX_NAME) ?? '';
}

function launcherCommand(
  vmi: VirtualMachineInstance,
  cfg: LauncherPodConfig,
  graceSeconds: number,
): string[] {
  return [
    ...(cfg.command ?? DEFAULT_LAUNCHER_COMMAND),
    '--name',
    vmi.metadata.name ?? '',
    '--namespace',
    vmi.metadata.namespace ?? '',
    '--uid',
    vmi.metadata.uid ?? '',
    '--grace-period-seconds',
    String(graceSeconds),
    '--emulation',
    cfg.allowEmulation === true ? 'auto' : 'off',
    '--root',
    cfg.launcherRoot ?? '/',
  ];
}

function securityContexts(root: boolean): {
  pod: Record<string, unknown>;
  container: Record<string, unknown>;
} {
  if (root) {
    return {
      pod: { runAsUser: 0 },
      container: { runAsUser: 0, privileged: false, capabilities: { add: ['NET_BIND_SERVICE', 'SYS_NICE'] } },
    };
  }
  const ids = { runAsUser: NON_ROOT_UID, runAsGroup: NON_ROOT_UID, runAsNonRoot: true };
  return {
    pod: { ...ids, fsGroup: NON_ROOT_UID },
    container: {
      ...ids,
      privileged: false,
      allowPrivilegeEscalation: false,
      capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
    },
  };
}

function computeContainer(
  vmi: VirtualMachineInstance,
  cfg: LauncherPodConfig,
  vols: RenderedVolumes,
  grace: number,
): Container {
  const resources = launcherResources(vmi, {
    allowEmulation: cfg.allowEmulation === true,
    cpuAllocationRatio: cfg.cpuAllocationRatio ?? DEFAULT_CPU_ALLOCATION_RATIO,
    overhead: cfg.overhead ?? {},
    permittedHostDevices: cfg.permittedHostDevices,
  });
  return {
    name: COMPUTE_CONTAINER,
    image: cfg.image,
    imagePullPolicy: cfg.imagePullPolicy ?? 'IfNotPresent',
    command: launcherCommand(vmi, cfg, grace),
    env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    resources,
    securityContext: securityContexts(cfg.root === true).container,
    volumeMounts: vols.mounts,
    ...(vols.devices.length > 0 && { volumeDevices: vols.devices }),
    ...launcherProbes(vmi, cfg.probeCommand),
  };
}

function nodeSelector(vmi: VirtualMachineInstance, cfg: LauncherPodConfig): Record<string, string> {
  return {
    ...cfg.nodeSelector,
    ...vmi.spec.nodeSelector,
    ...(vmi.spec.architecture !== undefined && { 'kubernetes.io/arch': vmi.spec.architecture }),
    [LABELS.NODE_SCHEDULABLE]: 'true',
  };
}

/** Optional VMI scheduling fields, copied when set. */
function schedulingFields(spec: VirtualMachineInstance['spec']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const copy: [string, unknown][] = [
    ['subdomain', spec.subdomain],
    ['tolerations', spec.tolerations],
    ['affinity', spec.affinity],
    ['topologySpreadConstraints', spec.topologySpreadConstraints],
    ['schedulerName', spec.schedulerName],
    ['priorityClassName', spec.priorityClassName],
    ['dnsConfig', spec.dnsConfig],
    ['dnsPolicy', spec.dnsPolicy],
  ];
  for (const [k, v] of copy) if (v !== undefined && v !== '') out[k] = structuredClone(v);
  return out;
}

function imagePullSecrets(vols: RenderedVolumes, cfg: LauncherPodConfig): { name: string }[] {
  const names = [...vols.imagePullSecrets];
  if (cfg.imagePullSecret !== undefined && !names.includes(cfg.imagePullSecret))
    names.push(cfg.imagePullSecret);
  return names.map((name) => ({ name }));
}

function virtiofsdContainers(vmi: VirtualMachineInstance, cfg: LauncherPodConfig): Container[] {
  if (cfg.virtiofsd === undefined) return [];
  return virtiofsContainers(vmi, {
    image: cfg.image,
    binary: cfg.virtiofsd,
    ...(cfg.imagePullPolicy !== undefined && { imagePullPolicy: cfg.imagePullPolicy }),
  });
}

/**
 * The VMI's resource claims on the Pod (template.go copies spec.resourceClaims), without the fork's
 * `hotpluggable` mark, which no Pod field holds: a claim declared hotpluggable is allocated with the Pod like
 * any other, as hotplug-declared volumes attach at start.
 */
function podResourceClaims(vmi: VirtualMachineInstance): { resourceClaims?: Record<string, string>[] } {
  const claims = (vmi.spec.resourceClaims ?? []).map(podResourceClaim);
  return claims.length > 0 ? { resourceClaims: claims } : {};
}

/** One VMI resource claim as a Pod's (the same fields, without `hotpluggable`). */
export function podResourceClaim(c: PodResourceClaim): Record<string, string> {
  const claim: Record<string, string> = { name: c.name };
  if (c.resourceClaimName !== undefined) claim['resourceClaimName'] = c.resourceClaimName;
  if (c.resourceClaimTemplateName !== undefined)
    claim['resourceClaimTemplateName'] = c.resourceClaimTemplateName;
  return claim;
}

/** The launcher Pod of the VMI; `backendStorageClaim` names its VM's backend-storage claim when it needs one. */
export function newLauncherPod(
  vmi: VirtualMachineInstance,
  cfg: LauncherPodConfig,
  backendStorageClaim?: string,
): Pod {
  const grace = terminationGracePeriodSeconds(vmi.spec) + GRACE_PADDING_SECONDS;
  const vols = launcherVolumes(vmi, { backendStorageClaim, virtiofsd: cfg.virtiofsd !== undefined });
  const hostname = launcherHostname(vmi);
  const pullSecrets = imagePullSecrets(vols, cfg);
  const sa = vols.serviceAccountName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: launcherPodName(vmi),
      namespace: vmi.metadata.namespace ?? '',
      labels: launcherPodLabels(vmi, hostname),
      annotations: {
        [ANNOTATIONS.DOMAIN]: vmi.metadata.name ?? '',
        ...copiedAnnotations(vmi),
        'kubectl.kubernetes.io/default-container': COMPUTE_CONTAINER,
      },
      ownerReferences: [newControllerRef(vmi, VMI_GVK)],
    },
    spec: {
      hostname,
      ...schedulingFields(vmi.spec),
      securityContext: securityContexts(cfg.root === true).pod,
      terminationGracePeriodSeconds: grace + GRACE_PADDING_SECONDS,
      restartPolicy: 'Never',
      enableServiceLinks: false,
      automountServiceAccountToken: sa !== undefined,
      ...(sa !== undefined && sa !== '' && { serviceAccountName: sa }),
      nodeSelector: nodeSelector(vmi, cfg),
      containers: [computeContainer(vmi, cfg, vols, grace), ...virtiofsdContainers(vmi, cfg)],
      volumes: vols.volumes,
      ...(pullSecrets.length > 0 && { imagePullSecrets: pullSecrets }),
      ...podResourceClaims(vmi),
    },
  };
}
