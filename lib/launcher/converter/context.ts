/**
 * Everything the converter knows about the host and the launcher's environment (kubevirt converter.go
 * ConverterContext). The converter never looks at the machine itself: the launcher finds these facts (is KVM
 * usable, which volumes are block devices, where OVMF lives, does a directory take O_DIRECT) and passes them
 * in. converterContext() fills the rest with the paths a launcher Pod has, under a root prefix.
 */
import path from 'node:path';
import { KvError } from '../../kernel/errors/errors.ts';
import { podLayout, type PodLayout } from '../../rpc/pod-layout.ts';
import type { ImageFormat } from './domain-spec.ts';

export const ARCHES = ['amd64', 'arm64', 's390x'] as const;
export type Arch = (typeof ARCHES)[number];

export function isArch(value: string): value is Arch {
  return (ARCHES as readonly string[]).includes(value);
}

/** SMBIOS system values from the cluster configuration (KubeVirt's VirtualMachineOptions.VirtualMachineSMBios). */
export interface Smbios {
  readonly manufacturer: string;
  readonly family: string;
  readonly product: string;
  readonly sku: string;
  readonly version: string;
}

/** OVMF/AAVMF images: the code (loader) and the variable-store template, with and without secure boot. */
interface EfiFiles {
  readonly code: string;
  readonly vars: string;
  readonly secureBootCode: string;
  readonly secureBootVars: string;
}

interface BlockSize {
  readonly logical: number;
  readonly physical: number;
}

/** What the launcher read off an interface's Pod link. */
export interface PodLink {
  readonly mtu: number;
  readonly mac?: string;
}

export interface ConverterContext {
  /** Absolute prefix of every launcher path ("/" in a Pod). */
  readonly root: string;
  readonly arch: Arch;
  /** TCG instead of KVM: domain type qemu and a custom CPU model (never host-model/host-passthrough). */
  readonly emulation: boolean;
  /** CPU model used under emulation when the VMI asks for host-model or host-passthrough. */
  readonly emulatedCpuModel: string;
  /** CPU models the hypervisor can run (domain capabilities); a VMI naming another one is refused. */
  readonly hostCpuModels?: readonly string[];
  /**
   * The most vCPUs libvirt gives a domain of the default machine type (domain capabilities `<vcpu max='N'/>`);
   * a VMI asking for more is refused, as it is above KubeVirt's 512 whatever the host says.
   */
  readonly maxVcpus?: number;
  readonly smbios?: Smbios;
  /** virtio-transitional device models for every VMI (a VMI can also ask through useVirtioTransitional). */
  readonly virtioTransitional: boolean;
  /** Where the launcher Pod mounts, and the launcher creates, everything (lib/rpc/pod-layout.ts). */
  readonly layout: PodLayout;
  /**
   * The disk file found in each containerDisk image volume (by volume name; the launcher looks before it
   * converts). Without an entry: `<layout.containerDiskDir(i)>/disk/disk.img`.
   */
  readonly containerDiskImages: ReadonlyMap<string, string>;
  readonly efi: EfiFiles;
  /** Seconds between balloon statistics updates; 0 turns them off. */
  readonly memBalloonStatsPeriod: number;
  /** Keep a log file of the serial console unless the VMI says logSerialConsole: false. */
  readonly serialConsoleLog: boolean;
  readonly freePageReporting: boolean;
  /**
   * The node answers a guest's downward metrics channel: the launcher has made the directory of
   * layout.downwardMetricsSocket and the handler connects to that socket and serves the metrics (KubeVirt's
   * virt-handler dmetrics-manager). Without it a VMI asking for the channel is refused.
   */
  readonly downwardMetricsServed: boolean;
  /**
   * The launcher Pod runs a virtiofsd per VMI filesystem, listening in layout.virtiofsDir. Without
   * it a VMI with filesystems is refused.
   */
  readonly virtiofsServed: boolean;
  /**
   * The launcher Pod mounts the VM's backend-storage claim (its `meta` directory is there), where a persistent
   * TPM's state and a persistent EFI variable store are kept. Without it such a VMI is refused.
   */
  readonly backendStorage: boolean;
  readonly bochsForEfiGuests: boolean;
  /** Volumes that are block devices; when absent, status.volumeStatus[].persistentVolumeClaimInfo decides. */
  readonly blockVolumes?: ReadonlySet<string>;
  /** Hotplugged volumes; when absent, those with status.volumeStatus[].hotplugVolume. */
  readonly hotplugVolumes?: ReadonlySet<string>;
  /** Format of each containerDisk image (raw when not listed). */
  readonly containerDiskFormats: ReadonlyMap<string, ImageFormat>;
  /**
   * Format of the image on each filesystem claim (persistentVolumeClaim or dataVolume, hotplugged or not, and
   * the claim under an ephemeral overlay), by volume name, as the launcher found it: qcow2 or raw, and qcow2
   * for an image it is about to make (Deckhouse's fork makes them qcow2). Raw when not listed: an image no
   * one looked at is never read as a format with metadata. Block claims are always raw.
   */
  readonly claimDiskFormats: ReadonlyMap<string, ImageFormat>;
  /** Whether disk images take O_DIRECT (cache=none): the default, and per volume. tmpfs does not. */
  readonly directIo: boolean;
  /**
   * How the domain attaches each interface, by name (VirtualMachineOptions.interfaceDomainAttachment): `tap`
   * for a binding plugin's interface makes it a tap interface like masquerade's; without an entry a binding
   * plugin's interface is left to its sidecar.
   */
  readonly interfaceDomainAttachment?: ReadonlyMap<string, string>;
  /**
   * Each interface's Pod link as the launcher found it in its network namespace, by interface name (domainspec
   * TapLibvirtSpecGenerator): a tap interface with an entry gets its `<mtu size>`, and its MAC when the VMI
   * names none (for the bridge binding, the MAC the Pod's interface had, kept on its stand-in dummy).
   */
  readonly podLinks?: ReadonlyMap<string, PodLink>;
  readonly directIoByVolume: ReadonlyMap<string, boolean>;
  /** Preallocated or thick volumes: no discard=unmap, and io=native with cache=none. */
  readonly preallocatedVolumes: ReadonlySet<string>;
  /** Block sizes of volumes, for disks with blockSize.matchVolume. */
  readonly volumeBlockSizes: ReadonlyMap<string, BlockSize>;
}

type Optional<T> = { -readonly [K in keyof T]?: T[K] };

export type ConverterContextOptions = Pick<ConverterContext, 'root' | 'arch' | 'emulation'> &
  Optional<Omit<ConverterContext, 'root' | 'arch' | 'emulation' | 'layout' | 'emulatedCpuModel' | 'efi'>> & {
    readonly emulatedCpuModel?: string;
    /** Directory of the OVMF images (KubeVirt's --ovmf-path); individual files can be given in `efi`. */
    readonly ovmfDir?: string;
    readonly efi?: Partial<EfiFiles>;
  };

/** A custom model TCG runs on each architecture. */
const EMULATED_CPU_MODELS: Readonly<Record<Arch, string>> = {
  amd64: 'qemu64',
  arm64: 'cortex-a57',
  s390x: 'qemu',
};

function efiFiles(arch: Arch, ovmfDir: string, given: Partial<EfiFiles> = {}): EfiFiles {
  const file = (name: string): string => path.join(ovmfDir, name);
  const defaults: EfiFiles =
    arch === 'arm64'
      ? {
          code: file('AAVMF_CODE.fd'),
          vars: file('AAVMF_VARS.fd'),
          secureBootCode: file('AAVMF_CODE.fd'),
          secureBootVars: file('AAVMF_VARS.fd'),
        }
      : {
          // Deckhouse's fork: the 4 MiB builds, and for secure boot the SMM code with the plain variable store
          // (no keys enrolled; its edk2 image copies OVMF_VARS.fd to OVMF_VARS.secboot.fd). Debian's names.
          code: file('OVMF_CODE_4M.fd'),
          vars: file('OVMF_VARS_4M.fd'),
          secureBootCode: file('OVMF_CODE_4M.secboot.fd'),
          secureBootVars: file('OVMF_VARS_4M.fd'),
        };
  return { ...defaults, ...given };
}

/** The full context: the options given, and for the rest the paths a launcher Pod uses, under `root`. */
export function converterContext(opts: ConverterContextOptions): ConverterContext {
  if (!path.isAbsolute(opts.root)) {
    throw new KvError('KV_ERR_CONFIG', `converter root must be absolute, got ${JSON.stringify(opts.root)}`);
  }
  const { ovmfDir, efi, ...rest } = opts;
  return {
    emulatedCpuModel: EMULATED_CPU_MODELS[opts.arch],
    virtioTransitional: false,
    layout: podLayout(opts.root),
    containerDiskImages: new Map(),
    memBalloonStatsPeriod: 10,
    serialConsoleLog: true,
    freePageReporting: true,
    downwardMetricsServed: false,
    virtiofsServed: false,
    backendStorage: false,
    bochsForEfiGuests: false,
    containerDiskFormats: new Map(),
    claimDiskFormats: new Map(),
    directIo: true,
    directIoByVolume: new Map(),
    preallocatedVolumes: new Set(),
    volumeBlockSizes: new Map(),
    ...rest,
    efi: efiFiles(opts.arch, ovmfDir ?? '/usr/share/OVMF', efi),
  };
}
