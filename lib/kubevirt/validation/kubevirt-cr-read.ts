/**
 * The parts of a KubeVirt CR the KubeVirt CR admitters read, taken from the JSON as KubeVirt's json.Unmarshal
 * into v1.KubeVirt takes them. Most of them are untyped in the CRD (certificateRotateStrategy, infra, workloads
 * and most of configuration keep unknown fields), so a value of the wrong type is refused here with Go's
 * UnmarshalTypeError text (`json: cannot unmarshal <json> into Go struct field <Struct>.<path> of type <type>`),
 * and a duration Go cannot parse with time.ParseDuration's text; both are thrown as KV_ERR_DECODE, which the
 * admitter answers with KubeVirt's 400. null is an absent field, as for Go's pointers. Pure.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import { parseGoDuration } from '../subresources/go-duration.ts';
import { goDurationError } from '../../kernel/go/strconv.ts';

type Json = Readonly<Record<string, unknown>>;

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

export interface KubeVirtView {
  readonly namespace: string;
  readonly patches: readonly string[];
  readonly selfSigned?: SelfSignedView;
  readonly guestMemoryOverheadRatio?: string;
  readonly tls?: { readonly minTLSVersion: string; readonly ciphers: readonly string[] };
  /** virtualMachineInstanceProfile (undefined: no seccompConfiguration or no profile) → customProfile. */
  readonly seccompProfile?: { readonly customProfile?: { localhost: boolean; runtimeDefault: boolean } };
  readonly infra?: { readonly replicas?: number; readonly nodePlacement?: Json };
  readonly workloads?: { readonly nodePlacement?: Json };
  /** developerConfiguration.featureGates; undefined when there is no developerConfiguration. */
  readonly featureGates?: readonly string[];
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

interface At {
  /** The Go struct holding the field (UnmarshalTypeError.Struct). */
  readonly struct: string;
  /** The JSON path from the root (UnmarshalTypeError.Field). */
  readonly path: string;
}

/** `o` without its undefined fields (what Go leaves nil). */
function compact<T extends object>(o: { [K in keyof T]-?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const at = (struct: string, path: string): At => ({ struct, path });
const under = (parent: At, struct: string, name: string): At => at(struct, `${parent.path}.${name}`);

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function mismatch(v: unknown, where: At, goType: string): never {
  throw new KvError(
    'KV_ERR_DECODE',
    `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${where.struct}.${where.path} of type ${goType}`,
  );
}

function asObject(v: unknown, where: At, goType: string): Json | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' && !Array.isArray(v) ? (v as Json) : mismatch(v, where, goType);
}

function asString(v: unknown, where: At, goType = 'string'): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : mismatch(v, where, goType);
}

function asStrings(v: unknown, where: At): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return mismatch(v, where, '[]string');
  return v.map((s) => asString(s, where) ?? '');
}

function asDuration(v: unknown, where: At): number | undefined {
  const text = asString(v, where);
  if (text === undefined) return undefined;
  const ns = parseGoDuration(text);
  if (ns === undefined) throw new KvError('KV_ERR_DECODE', goDurationError(text));
  return ns;
}

function asUint8(v: unknown, where: At): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') return mismatch(v, where, 'uint8');
  if (Number.isInteger(v) && v >= 0 && v <= 255) return v;
  throw new KvError(
    'KV_ERR_DECODE',
    `json: cannot unmarshal number ${String(v)} into Go struct field ${where.struct}.${where.path} of type uint8`,
  );
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
  const runtimeDefault = custom['runtimeDefaultProfile'];
  if (runtimeDefault !== undefined && runtimeDefault !== null && typeof runtimeDefault !== 'boolean')
    mismatch(runtimeDefault, under(customAt, 'CustomProfile', 'runtimeDefaultProfile'), 'bool');
  const localhost = asString(
    custom['localhostProfile'],
    under(customAt, 'CustomProfile', 'localhostProfile'),
  );
  return { customProfile: { localhost: localhost !== undefined, runtimeDefault: runtimeDefault === true } };
}

function component(spec: Json, name: 'infra' | 'workloads'): KubeVirtView['infra'] {
  const where = at('KubeVirtSpec', `spec.${name}`);
  const o = asObject(spec[name], where, 'v1.ComponentConfig');
  if (o === undefined) return undefined;
  const nodePlacement = asObject(
    o['nodePlacement'],
    under(where, 'ComponentConfig', 'nodePlacement'),
    'v1.NodePlacement',
  );
  const replicas = asUint8(o['replicas'], under(where, 'ComponentConfig', 'replicas'));
  return {
    ...(nodePlacement !== undefined && { nodePlacement }),
    ...(replicas !== undefined && { replicas }),
  };
}

function mediatedDevices(config: Json, cfgAt: At): KubeVirtView['mediatedDevices'] {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'mediatedDevicesConfiguration');
  const o = asObject(config['mediatedDevicesConfiguration'], where, 'v1.MediatedDevicesConfiguration');
  if (o === undefined) return undefined;
  const typesAt = (struct: string, parent: At): At => under(parent, struct, 'mediatedDevicesTypes');
  const nodesAt = under(where, 'MediatedDevicesConfiguration', 'nodeMediatedDeviceTypes');
  const nodes = o['nodeMediatedDeviceTypes'] ?? [];
  if (!Array.isArray(nodes)) return mismatch(nodes, nodesAt, '[]v1.NodeMediatedDeviceTypesConfig');
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

function developerGates(config: Json, cfgAt: At): string[] | undefined {
  const where = under(cfgAt, 'KubeVirtConfiguration', 'developerConfiguration');
  const dev = asObject(config['developerConfiguration'], where, 'v1.DeveloperConfiguration');
  if (dev === undefined) return undefined;
  return asStrings(dev['featureGates'], under(where, 'DeveloperConfiguration', 'featureGates')) ?? [];
}

function patches(spec: Json): string[] {
  const where = at('KubeVirtSpec', 'spec.customizeComponents');
  const cc = asObject(spec['customizeComponents'], where, 'v1.CustomizeComponents');
  const listAt = under(where, 'CustomizeComponents', 'patches');
  const list = cc?.['patches'] ?? [];
  if (!Array.isArray(list)) return mismatch(list, listAt, '[]v1.CustomizeComponentsPatch');
  return list.map((p: unknown) => {
    const patch = asObject(p, listAt, 'v1.CustomizeComponentsPatch');
    return asString(patch?.['patch'], under(listAt, 'CustomizeComponentsPatch', 'patch')) ?? '';
  });
}

/** The view of a KubeVirt CR (the request's object), or a KV_ERR_DECODE KvError with Go's text. */
export function readKubeVirt(obj: unknown): KubeVirtView {
  const root = asObject(obj, at('KubeVirt', ''), 'v1.KubeVirt') ?? {};
  const meta = asObject(root['metadata'], at('KubeVirt', 'metadata'), 'v1.ObjectMeta') ?? {};
  const spec = asObject(root['spec'], at('KubeVirt', 'spec'), 'v1.KubeVirtSpec') ?? {};
  const status = asObject(root['status'], at('KubeVirt', 'status'), 'v1.KubeVirtStatus') ?? {};
  const cfgAt = at('KubeVirtSpec', 'spec.configuration');
  const config = asObject(spec['configuration'], cfgAt, 'v1.KubeVirtConfiguration') ?? {};
  const str = (v: unknown, where: At, goType?: string): string => asString(v, where, goType) ?? '';
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
    featureGates: developerGates(config, cfgAt),
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
