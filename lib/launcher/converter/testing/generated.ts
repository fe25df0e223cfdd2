/**
 * Generated VMIs for the converter's fuzz test and for checks against a real libvirt: arbitraryVmi() draws VMIs
 * from the VMI schema (lib/kubevirt/schema/testing) narrowed to what a real guest looks like and this converter
 * renders (16Mi..2Gi of memory, 1 to 4 vCPUs, a few disks on supported buses, each with a volume of one source),
 * brokenVmi() draws one of them with exactly one field broken and says which field must be named when it is
 * refused, wildVmi() draws VMIs with any field the schema has, and generatedDomains(seed, n) gives n valid
 * realistic ones with their domain XML, the same for the same seed.
 */
import fc from 'fast-check';
import { isDraDevice, vmiInputSchema } from '../../../kubevirt/index.ts';
import { arbitraryFor } from '../../../kubevirt/schema/testing/arbitrary.ts';
import { brokenFrom, type Broken } from '../../../kubevirt/schema/testing/broken.ts';
import { convertVmiText } from '../../convert-command.ts';
import type { Arch } from '../context.ts';

type Json = Record<string, unknown>;

const NAME = /^[a-z][a-z0-9]{0,8}$/;
const Mi = 2 ** 20;

/** The optional fields a generated VMI may have (anything else is left out). */
const INCLUDED: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.labels',
  'metadata.annotations',
  'spec.domain.cpu',
  'spec.domain.cpu.cores',
  'spec.domain.cpu.sockets',
  'spec.domain.cpu.threads',
  'spec.domain.cpu.model',
  'spec.domain.memory',
  'spec.domain.memory.guest',
  'spec.domain.resources',
  'spec.domain.firmware',
  'spec.domain.firmware.uuid',
  'spec.domain.firmware.serial',
  'spec.domain.firmware.bootloader',
  'spec.domain.firmware.bootloader.bios',
  'spec.domain.firmware.bootloader.bios.useSerial',
  'spec.domain.features',
  'spec.domain.features.acpi',
  'spec.domain.features.acpi.enabled',
  'spec.domain.features.apic',
  'spec.domain.features.apic.enabled',
  'spec.domain.features.smm',
  'spec.domain.features.smm.enabled',
  'spec.domain.clock',
  'spec.domain.clock.utc',
  'spec.domain.clock.utc.offsetSeconds',
  'spec.domain.devices.disks',
  'spec.domain.devices.disks[].disk',
  'spec.domain.devices.disks[].disk.bus',
  'spec.domain.devices.disks[].cdrom',
  'spec.domain.devices.disks[].cdrom.bus',
  'spec.domain.devices.disks[].bootOrder',
  'spec.domain.devices.disks[].serial',
  'spec.domain.devices.disks[].cache',
  'spec.domain.devices.inputs',
  'spec.domain.devices.inputs[].bus',
  'spec.domain.devices.watchdog',
  'spec.domain.devices.watchdog.i6300esb',
  'spec.domain.devices.watchdog.i6300esb.action',
  'spec.domain.devices.rng',
  'spec.domain.devices.tpm',
  'spec.domain.devices.tpm.enabled',
  'spec.domain.devices.autoattachPodInterface',
  'spec.domain.devices.autoattachGraphicsDevice',
  'spec.domain.devices.autoattachSerialConsole',
  'spec.domain.devices.autoattachMemBalloon',
  'spec.domain.devices.useVirtioTransitional',
  'spec.domain.devices.blockMultiQueue',
  'spec.domain.devices.networkInterfaceMultiqueue',
  'spec.volumes',
  'spec.volumes[].containerDisk',
  'spec.volumes[].emptyDisk',
  'spec.volumes[].persistentVolumeClaim',
  'spec.volumes[].cloudInitNoCloud',
  'spec.volumes[].cloudInitNoCloud.userData',
  'spec.terminationGracePeriodSeconds',
]);

/** Memory in the notations people write: "512Mi", "0.5Gi", "524288Ki", 536870912, "536870912". */
const memorySize: fc.Arbitrary<string | number> = fc
  .tuple(fc.integer({ min: 16, max: 2048 }), fc.nat(4))
  .map(([mib, how]) => {
    const bytes = mib * Mi;
    if (how === 0) return `${String(mib)}Mi`;
    if (how === 1 && mib % 512 === 0) return `${String(mib / 1024)}Gi`;
    if (how === 2) return `${String(mib * 1024)}Ki`;
    if (how === 3) return bytes;
    return String(bytes);
  });

const OVERRIDES: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  apiVersion: fc.constant('kubevirt.io/v1'),
  kind: fc.constant('VirtualMachineInstance'),
  'metadata.name': fc.stringMatching(NAME),
  'metadata.namespace': fc.stringMatching(NAME),
  'metadata.uid': fc.uuid(),
  // KubeVirt takes tablets only.
  'spec.domain.devices.inputs[].type': fc.constant('tablet'),
  'spec.domain.cpu.cores': fc.integer({ min: 1, max: 4 }),
  'spec.domain.cpu.sockets': fc.integer({ min: 1, max: 4 }),
  'spec.domain.cpu.threads': fc.integer({ min: 1, max: 2 }),
  'spec.domain.cpu.model': fc.constantFrom('host-model', 'host-passthrough'),
  'spec.domain.memory.guest': memorySize,
  'spec.domain.resources': fc.record(
    { requests: fc.record({ cpu: fc.constantFrom('100m', '500m', '1', '2'), memory: memorySize }) },
    { requiredKeys: [] },
  ),
  'spec.domain.firmware.uuid': fc.uuid(),
  'spec.domain.clock.utc.offsetSeconds': fc.integer({ min: -43_200, max: 43_200 }),
  'spec.domain.devices.disks[].cdrom.bus': fc.constantFrom('sata', 'scsi'),
  'spec.volumes[].containerDisk': fc
    .constantFrom('guest', 'fedora:41', 'quay.io/c/disk@sha256:0a1b')
    .map((image) => ({ image })),
  'spec.volumes[].emptyDisk': fc
    .constantFrom('1Gi', '512Mi', '10G', 2 ** 30)
    .map((capacity) => ({ capacity })),
  'spec.volumes[].cloudInitNoCloud.userData': fc.constant('#cloud-config\n'),
  'spec.terminationGracePeriodSeconds': fc.integer({ min: 0, max: 600 }),
};

const SOURCES = ['containerDisk', 'emptyDisk', 'persistentVolumeClaim', 'cloudInitNoCloud'] as const;

/** At most 4 vCPUs in all. */
function realisticCpu(spec: Json): void {
  const domain = spec['domain'] as Json;
  const cpu = domain['cpu'] as Json | undefined;
  if (cpu === undefined) return;
  const count = ['sockets', 'cores', 'threads'].reduce(
    (n, k) => n * ((cpu[k] as number | undefined) ?? 1),
    1,
  );
  if (count > 4) {
    cpu['sockets'] = 1;
    cpu['threads'] = 1;
  }
}

/** Memory somewhere, or the guest would have none. */
function realisticMemory(spec: Json): void {
  const domain = spec['domain'] as Json;
  const memory = domain['memory'] as Json | undefined;
  const requests = (domain['resources'] as Json | undefined)?.['requests'] as Json | undefined;
  if (memory?.['guest'] === undefined && requests?.['memory'] === undefined)
    domain['memory'] = { guest: '128Mi' };
}

/** One source per volume (a claim named after it, at most one cloud-init), named after its disk. */
function realisticVolumes(spec: Json, diskCount: number): number {
  const volumes = (spec['volumes'] ?? []) as Json[];
  let cloudInit = false;
  volumes.forEach((v, i) => {
    v['name'] = i < diskCount ? `disk${String(i)}` : `vol${String(i)}`;
    const source = SOURCES.find((s) => v[s] !== undefined && !(s === 'cloudInitNoCloud' && cloudInit));
    for (const s of SOURCES) if (s !== source) Reflect.deleteProperty(v, s);
    if (source === undefined) v['containerDisk'] = { image: 'guest' };
    if (source === 'persistentVolumeClaim') v['persistentVolumeClaim'] = { claimName: `pvc${String(i)}` };
    cloudInit ||= source === 'cloudInitNoCloud';
  });
  return volumes.length;
}

/**
 * One device kind per disk, unique names (shared with the volumes) and boot orders; a disk left without a
 * volume becomes an empty CD-ROM drive (a disk would be refused).
 */
function realisticDisks(spec: Json): void {
  const devices = (spec['domain'] as Json)['devices'] as Json;
  const disks = (devices['disks'] ?? []) as Json[];
  const volumes = realisticVolumes(spec, disks.length);
  disks.forEach((d, i) => {
    d['name'] = `disk${String(i)}`;
    if (d['bootOrder'] !== undefined) d['bootOrder'] = i + 1;
    if (i >= volumes) d['cdrom'] = { bus: 'sata' };
    if (d['cdrom'] !== undefined && (d['disk'] === undefined || i >= volumes)) delete d['disk'];
    else delete d['cdrom'];
  });
  ((devices['inputs'] ?? []) as Json[]).forEach((input, i) => {
    input['name'] = `input${String(i)}`;
  });
}

/** A name, a namespace and a uid, which the domain is named and labelled after. */
function realisticMetadata(metadata: Json): void {
  metadata['name'] ??= 'guest';
  metadata['namespace'] ??= 'default';
  metadata['uid'] ??= '6a1f0b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b';
}

/** BIOS serial output only with a serial console (libvirt refuses it without a serial port). */
function realisticFirmware(spec: Json): void {
  const domain = spec['domain'] as Json;
  const bios = ((domain['firmware'] as Json | undefined)?.['bootloader'] as Json | undefined)?.['bios'] as
    Json | undefined;
  if ((domain['devices'] as Json)['autoattachSerialConsole'] === false && bios !== undefined) {
    delete bios['useSerial'];
  }
}

function realistic(vmi: unknown): Json {
  const v = vmi as Json;
  realisticMetadata(v['metadata'] as Json);
  const spec = v['spec'] as Json;
  realisticFirmware(spec);
  realisticCpu(spec);
  realisticMemory(spec);
  realisticDisks(spec);
  return v;
}

/** VMIs a real libvirt would define, and this converter renders. */
export function arbitraryVmi(): fc.Arbitrary<Json> {
  const include = (path: string): boolean => INCLUDED.has(path);
  return arbitraryFor(vmiInputSchema.node, { include, overrides: OVERRIDES }).map(realistic);
}

/**
 * Features the converter refuses outright (unsupported.ts): a wild VMI leaves them out to get further. GPUs and
 * host devices are refused only in their device-plugin form: a wild VMI has them in the DRA form (allocatedDra).
 */
const UNSUPPORTED: ReadonlySet<string> = new Set([
  'spec.domain.devices.filesystems',
  'spec.domain.devices.panicDevices',
  'spec.domain.devices.tpm.persistent',
  'spec.domain.firmware.bootloader.efi.persistent',
  'spec.domain.devices.sound',
  'spec.domain.devices.clientPassthrough',
  'spec.domain.devices.downwardMetrics',
  'spec.domain.devices.autoattachVSOCK',
  'spec.domain.launchSecurity',
  'spec.domain.memory.hugepages',
  'spec.domain.cpu.dedicatedCpuPlacement',
  'spec.domain.cpu.numa',
  'spec.domain.cpu.realtime',
  'spec.domain.firmware.acpi',
]);

const WILD_OVERRIDES: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  kind: fc.constant('VirtualMachineInstance'),
  'spec.domain.firmware.uuid': fc.uuid(),
  'spec.domain.memory.guest': memorySize,
  'spec.domain.cpu.cores': fc.integer({ min: 0, max: 4 }),
  'spec.domain.cpu.sockets': fc.integer({ min: 0, max: 4 }),
  'spec.domain.cpu.threads': fc.integer({ min: 0, max: 2 }),
  'spec.domain.cpu.maxSockets': fc.constantFrom(0, 4, 8),
  'spec.domain.cpu.features[].policy': fc.constantFrom('force', 'require', 'optional', 'disable', 'forbid'),
};

/** Attributes for the i-th allocated device: a PCI address, an mdev UUID or (a host device's) a USB address. */
function attributesFor(i: number, usb: boolean): Json {
  const hex = (i % 256).toString(16).padStart(2, '0');
  const kinds = [
    { pciAddress: `0000:${hex}:00.0` },
    { mDevUUID: `00000000-0000-4000-8000-0000000000${hex}` },
    ...(usb ? [{ usbAddress: { bus: 1, deviceNumber: i + 2 } }] : []),
  ];
  return kinds[i % kinds.length] ?? {};
}

/**
 * GPUs and host devices in their DRA form (the device-plugin one is refused outright), with the status the
 * controller writes once their claims are allocated.
 */
function allocatedDra(vmi: Json): void {
  const devices = ((vmi['spec'] as Json)['domain'] as Json)['devices'] as Json;
  const statuses = (list: string, usb: boolean): Json[] =>
    ((devices[list] ?? []) as Json[]).map((d, i) => {
      delete d['deviceName'];
      if (!isDraDevice(d)) d['claimName'] = d['name'];
      return { name: d['name'], deviceResourceClaimStatus: { attributes: attributesFor(i, usb) } };
    });
  const gpuStatuses = statuses('gpus', false);
  const hostDeviceStatuses = statuses('hostDevices', true);
  if (gpuStatuses.length + hostDeviceStatuses.length > 0)
    vmi['status'] = { deviceStatus: { gpuStatuses, hostDeviceStatuses } };
}

/**
 * What the wild ones would otherwise nearly always fail on first: no memory, both BIOS and EFI, DRA devices not
 * allocated yet.
 */
function lessWild(vmi: Json): Json {
  realisticMetadata(vmi['metadata'] as Json);
  const spec = vmi['spec'] as Json;
  realisticMemory(spec);
  allocatedDra(vmi);
  const bootloader = ((spec['domain'] as Json)['firmware'] as Json | undefined)?.['bootloader'] as
    Json | undefined;
  if (bootloader?.['bios'] !== undefined) delete bootloader['efi'];
  return vmi;
}

/**
 * VMIs with any field the schema has (but the status and the features refused outright), mostly random:
 * few of them convert, every one must either convert cleanly or be refused naming a field.
 */
export function wildVmi(): fc.Arbitrary<Json> {
  // The architecture comes from the context the test converts for (another one is refused at once).
  const include = (path: string): boolean =>
    path !== 'status' && path !== 'spec.architecture' && !UNSUPPORTED.has(path);
  return arbitraryFor(vmiInputSchema.node, { include, overrides: WILD_OVERRIDES, maxItems: 2 }).map((v) =>
    lessWild(v as Json),
  );
}

/** A broken VMI and the field its refusal must start with. */
export interface BrokenVmi extends Broken {
  /** The VMI before it was broken. */
  readonly original: unknown;
}

/** Breaks the converter refuses (the schema accepts them): each names the field its message must start with. */
const CONVERTER_BREAKS: readonly ((vmi: Json) => Broken)[] = [
  (vmi): Broken => withMemory(vmi, '512Ki', 'below 1M'),
  (vmi): Broken => withMemory(vmi, '1Ei', 'beyond 2^53 bytes'),
  (vmi): Broken => withMemory(vmi, '-1Gi', 'negative memory'),
  (vmi): Broken => withCpu(vmi, { cores: 100_000_000 }, 'spec.domain.cpu', '100 million cores'),
  (vmi): Broken =>
    withCpu(vmi, { sockets: 1, maxSockets: 1_000_000_000 }, 'spec.domain.cpu.maxSockets', 'huge maxSockets'),
  withGhostDisk,
];

/** A disk whose volume does not exist. */
function withGhostDisk(vmi: Json): Broken {
  const v = structuredClone(vmi);
  const devices = ((v['spec'] as Json)['domain'] as Json)['devices'] as Json;
  const disks = (devices['disks'] ??= []) as Json[];
  disks.push({ name: 'ghost', disk: {} });
  return {
    value: v,
    path: `spec.domain.devices.disks[${String(disks.length - 1)}].name`,
    how: 'no such volume',
  };
}

function withMemory(vmi: Json, guest: string, how: string): Broken {
  const v = structuredClone(vmi);
  const domain = (v['spec'] as Json)['domain'] as Json;
  domain['memory'] = { ...(domain['memory'] as Json | undefined), guest };
  return { value: v, path: 'spec.domain.memory.guest', how };
}

function withCpu(vmi: Json, cpu: Json, path: string, how: string): Broken {
  const v = structuredClone(vmi);
  ((v['spec'] as Json)['domain'] as Json)['cpu'] = cpu;
  return { value: v, path, how };
}

/** A generated VMI with one field broken: for the schema (most) or for the converter. */
export function brokenVmi(): fc.Arbitrary<BrokenVmi> {
  const node = vmiInputSchema.node;
  // `kind` is checked before the schema, as a property of the document (see parseVmiDocument).
  const exclude = (path: string): boolean => path === 'kind';
  return arbitraryVmi().chain((original) => {
    const converter = CONVERTER_BREAKS.map((f) => f(original));
    const broken = fc.oneof(
      { weight: 5, arbitrary: brokenFrom(node, original, exclude) },
      { weight: 1, arbitrary: fc.constantFrom(...converter) },
    );
    return broken.map((b) => ({ ...b, original }));
  });
}

export interface GeneratedDomain {
  /** The VMI as generated (before KubeVirt's defaults). */
  readonly vmi: unknown;
  readonly xml: string;
}

export interface GeneratedOptions {
  /** TCG (domain type qemu) unless false. */
  readonly emulation?: boolean;
  readonly arch?: Arch;
}

/** The domain XML of a generated VMI, as `virt launcher convert` makes it. */
export function convertGenerated(vmi: unknown, opts: GeneratedOptions = {}): string {
  return convertVmiText(JSON.stringify(vmi), {
    source: 'generated.json',
    emulation: opts.emulation ?? true,
    arch: opts.arch ?? 'amd64',
  });
}

/** n valid VMIs with their domain XML; the same seed gives the same ones. */
export function generatedDomains(seed: number, n: number, opts: GeneratedOptions = {}): GeneratedDomain[] {
  return fc
    .sample(arbitraryVmi(), { seed, numRuns: n })
    .map((vmi) => ({ vmi, xml: convertGenerated(vmi, opts) }));
}
