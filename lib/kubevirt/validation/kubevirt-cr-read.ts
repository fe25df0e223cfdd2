/**
 * The parts of a KubeVirt CR that the KubeVirt CR admitters and the operator read, taken from the JSON as
 * KubeVirt's json.Unmarshal into v1.KubeVirt takes them. Most of them are untyped in the CRD
 * (certificateRotateStrategy, infra, workloads and most of configuration keep unknown fields), so a value of
 * the wrong type is refused here with Go's texts (go-json.ts), which the admitter answers with KubeVirt's 400
 * and the operator reports with the field's path. Pure.
 */
import {
  asBool,
  asDuration,
  asInt,
  asList,
  asObject,
  asString,
  asStringMap,
  asStrings,
  at,
  compact,
  under,
  type At,
  type Json,
} from './go-json.ts';

interface CertConfigView {
  readonly duration?: number;
  readonly renewBefore?: number;
}

/** spec.certificateRotateStrategy.selfSigned; durations in nanoseconds. */
export interface SelfSignedView {
  readonly caRotateInterval?: number;
  readonly certRotateInterval?: number;
  readonly caOverlapInterval?: number;
  readonly ca?: CertConfigView;
  readonly server?: CertConfigView;
}

/** One spec.customizeComponents.patches entry as sent (the CRD requires every field). */
interface PatchView {
  readonly resourceName: string;
  readonly resourceType: string;
  readonly patch: string;
  readonly type: string;
}

/** developerConfiguration.logVerbosity: the components the operator passes a verbosity to. */
type LogVerbosityView = Partial<Record<'virtAPI' | 'virtController' | 'virtHandler', number>>;

/** A core/v1 Toleration as decoded (operator and effect are free strings to Go). */
export interface TolerationView {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

/** spec.infra / spec.workloads.nodePlacement, decoded. */
export interface PlacementView {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly TolerationView[];
  readonly affinity?: Json;
}

/** spec.infra or spec.workloads: the node placement as sent (`nodePlacement`) and decoded (`placement`). */
interface ComponentView {
  readonly replicas?: number;
  readonly nodePlacement?: Json;
  readonly placement?: PlacementView;
}

export interface KubeVirtView {
  readonly namespace: string;
  readonly patches: readonly PatchView[];
  readonly selfSigned?: SelfSignedView;
  readonly guestMemoryOverheadRatio?: string;
  readonly tls?: { readonly minTLSVersion: string; readonly ciphers: readonly string[] };
  /** virtualMachineInstanceProfile (undefined: no seccompConfiguration or no profile) → customProfile. */
  readonly seccompProfile?: { readonly customProfile?: { localhost: boolean; runtimeDefault: boolean } };
  readonly infra?: ComponentView;
  readonly workloads?: ComponentView;
  /** developerConfiguration.featureGates; undefined when there is no developerConfiguration. */
  readonly featureGates?: readonly string[];
  readonly logVerbosity?: LogVerbosityView;
  readonly mediatedDevices?: { readonly deprecatedTypes: boolean; readonly nodeDeprecatedTypes: boolean[] };
  readonly uninstallStrategy: string;
  readonly phase: string;
  /** The JSON of the fields KubeVirt compares between the old and the new object. */
  readonly raw: {
    readonly tls: unknown;
    readonly infra: unknown;
    readonly workloads: unknown;
    seccomp: unknown;
  };
}

function certConfig(v: unknown, where: At): CertConfigView | undefined {
  const o = asObject(v, where, 'v1.CertConfig');
  if (o === undefined) return undefined;
  const duration = asDuration(o['duration'], under(where, 'CertConfig', 'duration'));
  const renewBefore = asDuration(o['renewBefore'], under(where, 'CertConfig', 'renewBefore'));
  return { ...(duration !== undefined && { duration }), ...(renewBefore !== undefined && { renewBefore }) };
}

function selfSigned(spec: Json): SelfSignedView | undefined {
  const strategyAt = at('KubeVirtSpec', 'spec.certificateRotateStrategy');
  const strategy = asObject(
    spec['certificateRotateStrategy'],
    strategyAt,
    'v1.KubeVirtCertificateRotateStrategy',
  );
  const where = under(strategyAt, 'KubeVirtCertificateRotateStrategy', 'selfSigned');
  const o = asObject(strategy?.['selfSigned'], where, 'v1.KubeVirtSelfSignConfiguration');
  if (o === undefined) return undefined;
  const field = (name: string): At => under(where, 'KubeVirtSelfSignConfiguration', name);
  return compact<SelfSignedView>({
    caRotateInterval: asDuration(o['caRotateInterval'], field('caRotateInterval')),
    certRotateInterval: asDuration(o['certRotateInterval'], field('certRotateInterval')),
    caOverlapInterval: asDuration(o['caOverlapInterval'], field('caOverlapInterval')),
    ca: certConfig(o['ca'], field('ca')),
    server: certConfig(o['server'], field('server')),
  });
}

function tls(config: Json, cfgAt: At): KubeVirtView['tls'] {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'tlsConfiguration');
  const o = asObject(config['tlsConfiguration'], where, 'v1.TLSConfiguration');
  if (o === undefined) return undefined;
  return {
    minTLSVersion:
      asString(
        o['minTLSVersion'],
        under(where, 'TLSConfiguration', 'minTLSVersion'),
        'v1.TLSProtocolVersion',
      ) ?? '',
    ciphers: asStrings(o['ciphers'], under(where, 'TLSConfiguration', 'ciphers')) ?? [],
  };
}

function seccompProfile(config: Json, cfgAt: At): KubeVirtView['seccompProfile'] {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'seccompConfiguration');
  const seccomp = asObject(config['seccompConfiguration'], where, 'v1.SeccompConfiguration');
  const profileAt = under(where, 'SeccompConfiguration', 'virtualMachineInstanceProfile');
  const profile = asObject(
    seccomp?.['virtualMachineInstanceProfile'],
    profileAt,
    'v1.VirtualMachineInstanceProfile',
  );
  if (profile === undefined) return undefined;
  const customAt = under(profileAt, 'VirtualMachineInstanceProfile', 'customProfile');
  const custom = asObject(profile['customProfile'], customAt, 'v1.CustomProfile');
  if (custom === undefined) return {};
  const runtimeDefault = asBool(
    custom['runtimeDefaultProfile'],
    under(customAt, 'CustomProfile', 'runtimeDefaultProfile'),
  );
  const localhost = asString(
    custom['localhostProfile'],
    under(customAt, 'CustomProfile', 'localhostProfile'),
  );
  return { customProfile: { localhost: localhost !== undefined, runtimeDefault: runtimeDefault === true } };
}

function toleration(v: unknown, where: At): TolerationView {
  const o = asObject(v, where, 'v1.Toleration') ?? {};
  const field = (name: string): At => under(where, 'Toleration', name);
  return compact<TolerationView>({
    key: asString(o['key'], field('key')),
    operator: asString(o['operator'], field('operator'), 'v1.TolerationOperator'),
    value: asString(o['value'], field('value')),
    effect: asString(o['effect'], field('effect'), 'v1.TaintEffect'),
    tolerationSeconds: asInt(o['tolerationSeconds'], field('tolerationSeconds'), 'int64'),
  });
}

function placement(o: Json, where: At): PlacementView {
  const field = (name: string): At => under(where, 'NodePlacement', name);
  const tolerationsAt = field('tolerations');
  return compact<PlacementView>({
    nodeSelector: asStringMap(o['nodeSelector'], field('nodeSelector')),
    tolerations: asList(o['tolerations'], tolerationsAt, '[]v1.Toleration')?.map((t) =>
      toleration(t, tolerationsAt),
    ),
    affinity: asObject(o['affinity'], field('affinity'), 'v1.Affinity'),
  });
}

function component(spec: Json, name: 'infra' | 'workloads'): ComponentView | undefined {
  const where = at('KubeVirtSpec', `spec.${name}`);
  const o = asObject(spec[name], where, 'v1.ComponentConfig');
  if (o === undefined) return undefined;
  const placementAt = under(where, 'ComponentConfig', 'nodePlacement');
  const nodePlacement = asObject(o['nodePlacement'], placementAt, 'v1.NodePlacement');
  return compact<ComponentView>({
    replicas: asInt(o['replicas'], under(where, 'ComponentConfig', 'replicas'), 'uint8'),
    nodePlacement,
    placement: nodePlacement && placement(nodePlacement, placementAt),
  });
}

function mediatedDevices(config: Json, cfgAt: At): KubeVirtView['mediatedDevices'] {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'mediatedDevicesConfiguration');
  const o = asObject(config['mediatedDevicesConfiguration'], where, 'v1.MediatedDevicesConfiguration');
  if (o === undefined) return undefined;
  const typesAt = (struct: string, parent: At): At => under(parent, struct, 'mediatedDevicesTypes');
  const nodesAt = under(where, 'MediatedDevicesConfiguration', 'nodeMediatedDeviceTypes');
  const nodes = asList(o['nodeMediatedDeviceTypes'], nodesAt, '[]v1.NodeMediatedDeviceTypesConfig') ?? [];
  return {
    // Go keeps an empty list as a non-nil slice: only an absent (or null) list is no use of the old field.
    deprecatedTypes:
      asStrings(o['mediatedDevicesTypes'], typesAt('MediatedDevicesConfiguration', where)) !== undefined,
    nodeDeprecatedTypes: nodes.map((n: unknown) => {
      const node = asObject(n, nodesAt, 'v1.NodeMediatedDeviceTypesConfig');
      return (
        asStrings(node?.['mediatedDevicesTypes'], typesAt('NodeMediatedDeviceTypesConfig', nodesAt)) !==
        undefined
      );
    }),
  };
}

function developer(config: Json, cfgAt: At): Pick<KubeVirtView, 'featureGates' | 'logVerbosity'> {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'developerConfiguration');
  const dev = asObject(config['developerConfiguration'], where, 'v1.DeveloperConfiguration');
  if (dev === undefined) return {};
  const verbosityAt = under(where, 'DeveloperConfiguration', 'logVerbosity');
  const verbosity = asObject(dev['logVerbosity'], verbosityAt, 'v1.LogVerbosity');
  const level = (name: keyof LogVerbosityView): number | undefined =>
    asInt(verbosity?.[name], under(verbosityAt, 'LogVerbosity', name), 'uint');
  return compact<Pick<KubeVirtView, 'featureGates' | 'logVerbosity'>>({
    featureGates:
      asStrings(dev['featureGates'], under(where, 'DeveloperConfiguration', 'featureGates')) ?? [],
    logVerbosity:
      verbosity &&
      compact<LogVerbosityView>({
        virtAPI: level('virtAPI'),
        virtController: level('virtController'),
        virtHandler: level('virtHandler'),
      }),
  });
}

function patches(spec: Json): PatchView[] {
  const where = at('KubeVirtSpec', 'spec.customizeComponents');
  const cc = asObject(spec['customizeComponents'], where, 'v1.CustomizeComponents');
  const listAt = under(where, 'CustomizeComponents', 'patches');
  const list = asList(cc?.['patches'], listAt, '[]v1.CustomizeComponentsPatch') ?? [];
  return list.map((p: unknown) => {
    const patch = asObject(p, listAt, 'v1.CustomizeComponentsPatch');
    const field = (name: string, goType?: string): string =>
      asString(patch?.[name], under(listAt, 'CustomizeComponentsPatch', name), goType) ?? '';
    return {
      resourceName: field('resourceName'),
      resourceType: field('resourceType'),
      patch: field('patch'),
      type: field('type', 'v1.PatchType'),
    };
  });
}

/** The view of a KubeVirt CR (the request's object), or a KubeVirtDecodeError (KV_ERR_DECODE) with Go's text. */
export function readKubeVirt(obj: unknown): KubeVirtView {
  const root = asObject(obj, at('KubeVirt', ''), 'v1.KubeVirt') ?? {};
  const meta = asObject(root['metadata'], at('KubeVirt', 'metadata'), 'v1.ObjectMeta') ?? {};
  const spec = asObject(root['spec'], at('KubeVirt', 'spec'), 'v1.KubeVirtSpec') ?? {};
  const status = asObject(root['status'], at('KubeVirt', 'status'), 'v1.KubeVirtStatus') ?? {};
  const cfgAt = at('KubeVirtSpec', 'spec.configuration');
  const config = asObject(spec['configuration'], cfgAt, 'v1.KubeVirtConfiguration') ?? {};
  const str = (v: unknown, where: At, goType?: string): string => asString(v, where, goType) ?? '';
  const dev = developer(config, cfgAt);
  return compact<KubeVirtView>({
    namespace: str(meta['namespace'], at('ObjectMeta', 'metadata.namespace')),
    patches: patches(spec),
    selfSigned: selfSigned(spec),
    guestMemoryOverheadRatio: asString(
      config['additionalGuestMemoryOverheadRatio'],
      under(cfgAt, 'KubeVirtConfiguration', 'additionalGuestMemoryOverheadRatio'),
    ),
    tls: tls(config, cfgAt),
    seccompProfile: seccompProfile(config, cfgAt),
    infra: component(spec, 'infra'),
    workloads: component(spec, 'workloads'),
    featureGates: dev.featureGates,
    logVerbosity: dev.logVerbosity,
    mediatedDevices: mediatedDevices(config, cfgAt),
    uninstallStrategy: str(
      spec['uninstallStrategy'],
      at('KubeVirtSpec', 'spec.uninstallStrategy'),
      'v1.KubeVirtUninstallStrategy',
    ),
    phase: str(status['phase'], at('KubeVirtStatus', 'status.phase'), 'v1.KubeVirtPhase'),
    raw: {
      tls: config['tlsConfiguration'],
      infra: spec['infra'],
      workloads: spec['workloads'],
      seccomp: config['seccompConfiguration'],
    },
  });
}
