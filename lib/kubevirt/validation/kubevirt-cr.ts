/**
 * KubeVirt CR admission, the rules virt-operator's webhooks enforce in KubeVirt v1.6.2 (the Deckhouse fork does
 * not change them):
 * - create (kubevirt-create-admitter.go): refused while any KubeVirt CR exists in the cluster;
 * - update (kubevirt-update-admitter.go): customizeComponents patches are JSON; the self-signed certificate
 *   rotation settings are consistent; additionalGuestMemoryOverheadRatio is a float ≥ 1; a changed
 *   tlsConfiguration names ciphers only below TLS 1.3 and only ones Go knows; a changed infra or workloads
 *   nodePlacement is accepted by a dry-run Deployment or DaemonSet (the caller runs it and passes the
 *   refusal); a changed seccompConfiguration names a consistent custom profile; infra replicas are not 0. An
 *   allowed update carries warnings for inactive feature gates newly listed and for the deprecated
 *   mediatedDevicesTypes;
 * - delete (webhook.go, KubeVirtDeletionAdmitter): with uninstallStrategy BlockUninstallIfWorkloadsExist on a
 *   Deployed KubeVirt, refused while VMIs or VMs exist.
 * Update causes come in KubeVirt's order, all of them (it does not stop at the first). Pure.
 *
 * Left out: the VMI replica sets KubeVirt's delete check also lists (this project has no such resource), and
 * the warnings KubeVirt attaches to a refused update (a refusing Verdict carries none).
 */
import { child, invalid, notSupported, type Causes } from './causes.ts';
import { gateEnabled } from './context.ts';
import { semanticEqual } from './equality.ts';
import { goQuote, parseGoFloat } from '../../kernel/go/strconv.ts';
import type { PlacementCheck } from './kubevirt-cr-placement.ts';
import type { KubeVirtView, SelfSignedView } from './kubevirt-cr-read.ts';
import { TLS_CIPHER_NAMES } from './tls-ciphers.ts';

const KUBEVIRT_ALREADY_CREATED = 'Kubevirt is already created';

/** Refuses a second KubeVirt CR: the message of KubeVirt's 400, or undefined when none exists yet. */
export function kubeVirtCreateRefusal(existing: number): string | undefined {
  return existing > 0 ? KUBEVIRT_ALREADY_CREATED : undefined;
}

/** The workloads a blocked uninstall names, in the order KubeVirt checks them. */
export type UninstallBlocker = 'Virtual Machine Instances' | 'Virtual Machines';

/** Whether deleting this KubeVirt must first find no workloads (BlockUninstallIfWorkloadsExist on a Deployed CR). */
export function blocksUninstall(kv: Pick<KubeVirtView, 'uninstallStrategy' | 'phase'>): boolean {
  return kv.uninstallStrategy === 'BlockUninstallIfWorkloadsExist' && kv.phase === 'Deployed';
}

export function uninstallRefusal(present: UninstallBlocker): string {
  return `Rejecting the uninstall request, since there are still ${present} present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.`;
}

const patchCauses = (kv: KubeVirtView): Causes =>
  kv.patches.flatMap(({ patch }) => {
    try {
      JSON.parse(patch);
      return [];
    } catch {
      return [notSupported('', `patch ${goQuote(patch)} is not valid JSON`)];
    }
  });

const DAY_NS = 24 * 3600e9;

/** Nanoseconds: the CA's and the server certificates' lifetimes and how long before their end they renew. */
export interface SelfSignedRotation {
  readonly ca: number;
  readonly caRenew: number;
  readonly cert: number;
  readonly certRenew: number;
}

/** apply.GetCADuration, GetCARenewBefore, GetCertDuration, GetCertRenewBefore: deprecated fields first. */
export function selfSignedRotation(c: SelfSignedView): SelfSignedRotation {
  const ca = c.caRotateInterval ?? c.ca?.duration ?? 7 * DAY_NS;
  const cert = c.certRotateInterval ?? c.server?.duration ?? DAY_NS;
  return {
    ca,
    caRenew: c.caOverlapInterval ?? c.ca?.renewBefore ?? Math.trunc(ca * 0.2),
    cert,
    certRenew: c.server?.renewBefore ?? Math.trunc(cert * 0.2),
  };
}

/**
 * The self-signed rotation settings KubeVirt refuses, each cause with the field it concerns under
 * spec.certificateRotateStrategy.selfSigned (KubeVirt's webhook sends them without a field).
 */
export function selfSignedCauses(c: SelfSignedView): Causes {
  const out: Causes = [];
  const at = 'spec.certificateRotateStrategy.selfSigned';
  const deprecated = [c.caRotateInterval, c.certRotateInterval, c.caOverlapInterval].some(
    (d) => d !== undefined,
  );
  if (deprecated && (c.ca !== undefined || c.server !== undefined)) {
    const message =
      'caRotateInterval, certRotateInterval and caOverlapInterval are deprecated and conflict with CertConfig defined rotation parameters';
    out.push(notSupported(at, message));
  }
  const r = selfSignedRotation(c);
  const base = 'spec.certificateRotationStrategy.selfSigned';
  if (r.ca < r.caRenew) {
    const message = `CA RenewBefore cannot exceed Duration (${base}.ca.duration < ${base}.ca.renewBefore)`;
    out.push(invalid(`${at}.ca.renewBefore`, message));
  }
  if (r.cert < r.certRenew) {
    const message = `Cert RenewBefore cannot exceed Duration (${base}.server.duration < ${base}.server.renewBefore)`;
    out.push(invalid(`${at}.server.renewBefore`, message));
  }
  if (r.cert > r.ca) {
    const message = `Certificate duration cannot exceed CA (${base}.server.duration > ${base}.ca.duration)`;
    out.push(invalid(`${at}.server.duration`, message));
  }
  return out;
}

const certificateCauses = (kv: KubeVirtView): Causes =>
  kv.selfSigned === undefined ? [] : selfSignedCauses(kv.selfSigned).map((c) => ({ ...c, field: '' }));

function ratioCauses(kv: KubeVirtView): Causes {
  const text = kv.guestMemoryOverheadRatio;
  if (text === undefined) return [];
  const parsed = parseGoFloat(text);
  if ('error' in parsed)
    return [notSupported('', `ratio provided, ${text}, cannot be parsed into float: ${parsed.error}`)];
  return parsed.value < 1 ? [notSupported('', `ratio provided, ${text}, cannot be smaller than 1.0`)] : [];
}

function tlsCauses(oldKv: KubeVirtView, newKv: KubeVirtView): Causes {
  const t = newKv.tls;
  if (t === undefined || semanticEqual(oldKv.raw.tls, newKv.raw.tls)) return [];
  const field = 'spec.configuration.tlsConfiguration.ciphers';
  if (t.minTLSVersion === 'VersionTLS13' || t.minTLSVersion === '') {
    if (t.ciphers.length === 0) return [];
    const message =
      'You cannot specify ciphers when spec.configuration.tlsConfiguration.minTLSVersion is empty or VersionTLS13';
    return [notSupported(field, message)];
  }
  return t.ciphers.flatMap((c, i) =>
    TLS_CIPHER_NAMES.has(c) ? [] : [notSupported(`${field}#${i}`, `${c} is not a valid cipher`)],
  );
}

function seccompCauses(oldKv: KubeVirtView, newKv: KubeVirtView): Causes {
  const profile = newKv.seccompProfile;
  if (profile === undefined || semanticEqual(oldKv.raw.seccomp, newKv.raw.seccomp)) return [];
  const custom = child(
    'spec.configuration.seccompConfiguration',
    'virtualMachineInstanceProfile',
    'customProfile',
  );
  const c = profile.customProfile;
  if (c === undefined) return [invalid(custom, `${custom} needs to be set`)];
  if (!c.localhost || !c.runtimeDefault) return [];
  const localhost = child(custom, 'localhostProfile');
  const runtime = child(custom, 'runtimeDefaultProfile');
  return [
    invalid(localhost, `${localhost} cannot be set when ${runtime} is set`),
    invalid(runtime, `${runtime} cannot be set when ${localhost} is set`),
  ];
}

export interface KubeVirtUpdateContext {
  /** The refusals of the dry-run creates placementChecks asked for (an accepted one is absent). */
  readonly placementRefusals: Readonly<Partial<Record<PlacementCheck['component'], string>>>;
}

/** The causes refusing a KubeVirt update; none admits it. */
export function validateKubeVirtUpdate(
  oldKv: KubeVirtView,
  newKv: KubeVirtView,
  ctx: KubeVirtUpdateContext,
): Causes {
  const refusal = (component: PlacementCheck['component']): Causes => {
    const message = ctx.placementRefusals[component];
    return message === undefined ? [] : [invalid('', message)];
  };
  return [
    ...patchCauses(newKv),
    ...certificateCauses(newKv),
    ...ratioCauses(newKv),
    ...tlsCauses(oldKv, newKv),
    ...refusal('infra'),
    ...refusal('workloads'),
    ...seccompCauses(oldKv, newKv),
    ...(newKv.infra?.replicas === 0 ? [invalid('', "infra replica count can't be 0")] : []),
  ];
}

const GA_WARNING = (gate: string): string =>
  `feature gate ${gate} is deprecated (feature state is "General Availability"), therefore it can be safely removed and is redundant. For more info, please look at: https://github.com/kubevirt/kubevirt/blob/main/docs/deprecation.md`;

/** The deprecated and discontinued gates' own messages (featuregate inactive.go, passt.go, macvtap.go, virtiofs.go). */
const INACTIVE_GATE_MESSAGES: Readonly<Record<string, string>> = {
  DockerSELinuxMCSWorkaround: 'DockerSELinuxMCSWorkaround has been deprecated since v1.4.',
  ExperimentalVirtiofsSupport:
    'Virtiofs ExperimentalVirtiofsSupport feature gate is deprecated and will be removed in >= 1.6. Please use EnableVirtioFsConfigVolumes or EnableVirtioFsPVC feature gates instead',
  Passt:
    'Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
  Macvtap:
    'Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
};

/** featureGatesChanged: a removed developerConfiguration is no change; a new one counts if it lists a gate. */
function gatesChanged(oldKv: KubeVirtView, newKv: KubeVirtView): boolean {
  if (newKv.featureGates === undefined) return false;
  if (oldKv.featureGates === undefined) return newKv.featureGates.length > 0;
  return !semanticEqual(oldKv.featureGates, newKv.featureGates);
}

const MDEV = 'spec.configuration.mediatedDevicesConfiguration';
const mdevWarning = (field: string): string => `${field} is deprecated, use mediatedDeviceTypes`;

/**
 * The warnings of an admitted update: each listed gate that is GA, deprecated or discontinued (when the list
 * changed), then each use of the deprecated mediatedDevicesTypes. KubeVirt also appends an empty warning for an
 * alpha or beta gate, which kube-apiserver drops; it is left out here.
 */
export function kubeVirtUpdateWarnings(oldKv: KubeVirtView, newKv: KubeVirtView): string[] {
  const none = { featureGates: new Set<string>() };
  const gates = gatesChanged(oldKv, newKv)
    ? (newKv.featureGates ?? []).flatMap((g) => {
        const message = INACTIVE_GATE_MESSAGES[g] ?? (gateEnabled(none, g) ? GA_WARNING(g) : undefined);
        return message === undefined ? [] : [message];
      })
    : [];
  const mdev = newKv.mediatedDevices;
  if (mdev === undefined) return gates;
  return [
    ...gates,
    ...(mdev.deprecatedTypes ? [mdevWarning(`${MDEV}.mediatedDevicesTypes`)] : []),
    ...mdev.nodeDeprecatedTypes.flatMap((used, i) =>
      used ? [mdevWarning(`${MDEV}.nodeMediatedDeviceTypes[${i}].mediatedDevicesTypes`)] : [],
    ),
  ];
}
