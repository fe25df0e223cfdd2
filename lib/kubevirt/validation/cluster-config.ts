/**
 * What admission reads of the cluster's KubeVirt CR (KubeVirt pkg/virt-config configuration.go GetConfig,
 * GetConfigFromKubeVirtCR, setConfigFromKubeVirt and validateConfig; virt-config.go GetEmulatedMachines): the
 * feature gates of spec.configuration.developerConfiguration, the defaulting settings, the emulated machines
 * per architecture and the default architecture. Without a CR the context is KubeVirt's defaults: no gate
 * listed, only the GA ones on. A configuration validateConfig refuses is reported instead, and the caller keeps
 * the last good one, as KubeVirt does. Pure.
 */
import { clusterDefaultsFrom, DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import type { KubeVirtConfiguration } from '../v1/kubevirt.ts';
import type { KubeVirt } from '../v1/objects.ts';
import { DEFAULT_EMULATED_MACHINES, type ValidationContext } from './context.ts';

export const DEFAULT_VALIDATION_CONTEXT: ValidationContext = {
  featureGates: new Set(),
  cluster: DEFAULT_CLUSTER_DEFAULTS,
  emulatedMachines: DEFAULT_EMULATED_MACHINES,
};

/**
 * The CR that configures the cluster: of those not being deleted, the first by name (the KubeVirt CR create
 * webhook admits one per cluster). KubeVirt also waits for the operator to give it a status.phase; no role
 * sets one here yet, so the phase is not asked for.
 */
export function configuringKubeVirt(list: readonly KubeVirt[]): KubeVirt | undefined {
  const live = list.filter((kv) => (kv.metadata.deletionTimestamp ?? '') === '');
  return live.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
}

type Json = Readonly<Record<string, unknown>>;
/** Go's %v of a JSON value. */
const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const oneOf =
  (allowed: readonly unknown[], message: string, read: (c: Json) => unknown) =>
  (c: Json): string | undefined => {
    const v = read(c) ?? '';
    return allowed.includes(v) ? undefined : `${message}: ${shown(v)}`;
  };
const inRange =
  (message: string, ok: (n: number) => boolean, read: (dev: Json) => unknown, fallback: number) =>
  (c: Json): string | undefined => {
    const v = read((c['developerConfiguration'] ?? {}) as Json) ?? fallback;
    return typeof v === 'number' && ok(v) ? undefined : `${message}: ${shown(v)}`;
  };

/** KubeVirt's validateConfig, over its defaults with the CR's fields laid on. */
const CONFIG_CHECKS: readonly ((c: Json) => string | undefined)[] = [
  oneOf(
    ['', 'Always', 'Never', 'IfNotPresent'],
    'invalid dev.imagePullPolicy in config',
    (c) => c['imagePullPolicy'],
  ),
  inRange(
    'invalid memoryOvercommit in ConfigMap',
    (n) => n > 0,
    (d) => d['memoryOvercommit'],
    100,
  ),
  inRange(
    'invalid cpu allocation ratio in ConfigMap',
    (n) => n > 0,
    (d) => d['cpuAllocationRatio'],
    10,
  ),
  inRange(
    'invalid lessPVCSpaceToleration in ConfigMap',
    (n) => n >= 0 && n <= 100,
    (d) => d['lessPVCSpaceToleration'],
    10,
  ),
  oneOf(
    ['', 'bridge', 'slirp', 'masquerade'],
    'invalid default-network-interface in config',
    (c) => (c['network'] as Json | undefined)?.['defaultNetworkInterface'],
  ),
];

/** Why KubeVirt refuses this configuration, if it does. */
function configProblem(c: KubeVirtConfiguration): string | undefined {
  for (const check of CONFIG_CHECKS) {
    const problem = check(c);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** GetEmulatedMachines: the deprecated top-level list wins for every architecture, else each one's own. */
function emulatedMachines(c: KubeVirtConfiguration): Record<string, readonly string[]> {
  const all = c.emulatedMachines;
  const arch = c.architectureConfiguration;
  const own: Readonly<Record<string, readonly string[] | undefined>> = {
    amd64: arch?.amd64?.emulatedMachines,
    arm64: arch?.arm64?.emulatedMachines,
    ppc64le: arch?.ppc64le?.emulatedMachines,
  };
  return Object.fromEntries(
    Object.entries(DEFAULT_EMULATED_MACHINES).map(([name, d]) => [name, all ?? own[name] ?? d]),
  );
}

export type ClusterConfigReading =
  | { readonly ok: true; readonly context: ValidationContext }
  | { readonly ok: false; readonly problem: string };

/**
 * The validation context the CR gives. The default architecture is the CR's status.defaultArchitecture, which
 * virt-operator copies from the spec or its own architecture; without an operator the spec's, else amd64.
 */
export function readClusterConfig(kv: KubeVirt | undefined): ClusterConfigReading {
  if (kv === undefined) return { ok: true, context: DEFAULT_VALIDATION_CONTEXT };
  const c = kv.spec.configuration ?? {};
  const problem = configProblem(c);
  if (problem !== undefined) return { ok: false, problem };
  const arch =
    [kv.status?.defaultArchitecture, c.architectureConfiguration?.defaultArchitecture].find(
      (a) => a !== undefined && a !== '',
    ) ?? DEFAULT_CLUSTER_DEFAULTS.defaultArchitecture;
  return {
    ok: true,
    context: {
      featureGates: new Set(c.developerConfiguration?.featureGates ?? []),
      cluster: clusterDefaultsFrom(c, arch),
      emulatedMachines: emulatedMachines(c),
    },
  };
}
