/**
 * The parts of a core/v1 Pod the controllers read and write, and KubeVirt's readings of a launcher Pod's state
 * (kubevirt pkg/controller/controller.go IsPodReady, IsPodDownOrGoingDown, IsPodFailedOrGoingDown).
 */
import type { KubeObject } from '../../kernel/kube/types.ts';

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string };
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount?: number;
  /** `<runtime>://<id>`. */
  containerID?: string;
  image?: string;
  state?: ContainerState;
}

interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
  podIP?: string;
  /** Every address of the Pod, one per family, podIP first. */
  podIPs?: { ip?: string }[];
  /** The ResourceClaim made (or named) for each entry of spec.resourceClaims. */
  resourceClaimStatuses?: { name: string; resourceClaimName?: string }[];
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
  mountPropagation?: string;
}

export interface VolumeDevice {
  name: string;
  devicePath: string;
}

/** core/v1 Probe: its timings and one handler, kept as given. */
export interface Probe {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  exec?: Record<string, unknown>;
  httpGet?: Record<string, unknown>;
  tcpSocket?: Record<string, unknown>;
}

export interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  env?: Record<string, unknown>[];
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
    /** DRA: the Pod's resource claims (and requests of them) this container uses. */
    claims?: { name: string; request?: string }[];
  };
  securityContext?: Record<string, unknown>;
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

interface PodSpec {
  containers: Container[];
  nodeName?: string;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

/** Name of the launcher's main container. */
export const COMPUTE_CONTAINER = 'compute';

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

function computeStatus(pod: Pod): ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === COMPUTE_CONTAINER);
}

export function isPodDown(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isPodDownOrGoingDown(pod: Pod): boolean {
  return (
    isPodDown(pod) ||
    computeStatus(pod)?.state?.terminated !== undefined ||
    pod.metadata.deletionTimestamp !== undefined
  );
}

/**
 * Ready to hand over to the node: phase Running, the compute container started (its readiness is the guest's,
 * so not awaited), every other container ready. istio-proxy only needs to run.
 */
export function isPodReady(pod: Pod): boolean {
  if (isPodDownOrGoingDown(pod)) return false;
  for (const cs of pod.status?.containerStatuses ?? []) {
    const started = cs.state?.running !== undefined;
    if (cs.name === COMPUTE_CONTAINER || cs.name === 'istio-proxy') {
      if (!started) return false;
    } else if (!cs.ready) return false;
  }
  return pod.status?.phase === 'Running';
}
