/**
 * The containers every workload generator renders (KubeVirt's components/deployments.go newPodTemplateSpec and
 * attachCertificateSecret): `virt <role>` with its flags, probes on the health port, resource requests, and each
 * volume paired with where a container mounts it, so a Pod's volumes are collected from its containers.
 */
import type { InstallConfig } from '../../config/install-config.ts';
import { CA_BUNDLE_KEY, TLS_CERT_KEY, TLS_KEY_KEY } from '../names.ts';
import { CA_BUNDLE_DIR } from '../layout.ts';

/**
 * The health servers' scheme: every role serves its health port over TLS (its metrics pair), and the kubelet's
 * HTTPS probes do not verify the certificate.
 */
const HEALTH_SCHEME = 'HTTPS';

/** The named port of every role's health server: the metrics Service's target and the probes' port. */
export const METRICS_PORT = 'metrics';

/** The CA bundle file where CA_BUNDLE_DIR is mounted. */
export const CA_BUNDLE_FILE = `${CA_BUNDLE_DIR}/${CA_BUNDLE_KEY}`;

export type EnvVar =
  { name: string; value: string } | { name: string; valueFrom: { fieldRef: { fieldPath: string } } };
export type ContainerPort = { name: string; containerPort: number; protocol: 'TCP' };
export type VolumeMount = {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  mountPropagation?: 'Bidirectional' | 'HostToContainer';
};
export type Volume =
  | { name: string; secret: { secretName: string; optional?: boolean } }
  | { name: string; configMap: { name: string; optional?: boolean } }
  | { name: string; hostPath: { path: string; type?: 'DirectoryOrCreate' } };
type Probe = {
  httpGet: { scheme: string; path: string; port: string };
  initialDelaySeconds: number;
  timeoutSeconds: number;
  periodSeconds: number;
};
type Quantities = { cpu: string; memory: string };
export type Resources = { requests: Quantities; limits?: Quantities };

export type Container = {
  name: string;
  image: string;
  imagePullPolicy: InstallConfig['imagePullPolicy'];
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: ContainerPort[];
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: Resources;
  securityContext?: Record<string, unknown>;
  terminationMessagePolicy: 'FallbackToLogsOnError';
};

/** A volume and where one container mounts it. */
export interface Mounted {
  readonly volume: Volume;
  readonly mount: VolumeMount;
}

/** What a generator says of a container: the image defaults to cfg.image, mounts carry their volumes. */
export type ContainerSpec = Omit<
  Container,
  'image' | 'imagePullPolicy' | 'terminationMessagePolicy' | 'volumeMounts'
> & {
  image?: string;
  mounts?: readonly Mounted[];
};

/** Unprivileged containers (KubeVirt's api and controller): no privilege escalation, no capabilities. */
export const RESTRICTED: Record<string, unknown> = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** `virt <role>`'s arguments: the role (and subcommand), then each flag and its value in order. */
export function roleArgs(
  role: readonly string[],
  flags: Readonly<Record<string, string | number | boolean>>,
): string[] {
  return [...role, ...Object.entries(flags).flatMap(([flag, value]) => [flag, String(value)])];
}

/** The certificate and key files of a TLS Secret mounted at dir. */
export function tlsFiles(dir: string): { readonly cert: string; readonly key: string } {
  return { cert: `${dir}/${TLS_CERT_KEY}`, key: `${dir}/${TLS_KEY_KEY}` };
}

/** Every role's health port TLS flags: the pair of the TLS Secret mounted at dir. */
export function metricsTlsFlags(dir: string): Record<string, string> {
  const { cert, key } = tlsFiles(dir);
  return { '--metrics-tls-cert-file': cert, '--metrics-tls-key-file': key };
}

/** A Secret mounted read-only at dir, named as the Secret; optional when the Pod must start without it. */
export function secretAt(secretName: string, dir: string, optional = false): Mounted {
  return {
    volume: { name: secretName, secret: { secretName, ...(optional && { optional }) } },
    mount: { name: secretName, mountPath: dir, readOnly: true },
  };
}

/** A ConfigMap mounted read-only at dir, named as the ConfigMap. */
export function configMapAt(name: string, dir: string, optional = false): Mounted {
  return {
    volume: { name, configMap: { name, ...(optional && { optional }) } },
    mount: { name, mountPath: dir, readOnly: true },
  };
}

/** A host directory mounted at the same path. */
export function hostPathAt(
  name: string,
  path: string,
  o: { propagation?: VolumeMount['mountPropagation']; create?: boolean } = {},
): Mounted {
  return {
    volume: { name, hostPath: { path, ...(o.create === true && { type: 'DirectoryOrCreate' }) } },
    mount: { name, mountPath: path, ...(o.propagation !== undefined && { mountPropagation: o.propagation }) },
  };
}

export function tcpPort(name: string, containerPort: number): ContainerPort {
  return { name, containerPort, protocol: 'TCP' };
}

function httpProbe(path: string, port: string): Probe {
  return {
    httpGet: { scheme: HEALTH_SCHEME, path, port },
    initialDelaySeconds: 15,
    timeoutSeconds: 10,
    periodSeconds: 10,
  };
}

/**
 * Liveness on /healthz and readiness on `ready` of the named health port. A leader-elected role is ready on
 * /healthz: its /readyz waits for the lease, and a PodDisruptionBudget counting only the leader would block
 * every drain of its node (KubeVirt's controller answers its /leader probe 200 on every replica).
 */
export function probes(
  port: string,
  ready: '/readyz' | '/healthz',
): Pick<Container, 'livenessProbe' | 'readinessProbe'> {
  return { livenessProbe: httpProbe('/healthz', port), readinessProbe: httpProbe(ready, port) };
}

export function requests(cpu: string, memory: string): Resources {
  return { requests: { cpu, memory } };
}

/** The container from its spec: cfg's image unless it names another, cfg's pull policy, its mounts. */
export function container(cfg: InstallConfig, spec: ContainerSpec): Container {
  const { name, image, mounts, ...rest } = spec;
  return {
    name,
    image: image ?? cfg.image,
    imagePullPolicy: cfg.imagePullPolicy,
    ...rest,
    ...(mounts !== undefined && mounts.length > 0 && { volumeMounts: mounts.map((m) => m.mount) }),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}
