/**
 * The converter context of one sync: the launcher's host facts (root, accelerator, usable CPU models, O_DIRECT)
 * plus what the handler sent in VirtualMachineOptions (SMBIOS, balloon period, preallocated volumes, disk
 * formats from qemu-img info, how each interface is attached, cluster switches). QEMU's serial port is bound to a private socket next to the
 * public console socket, which the launcher's relay serves (serial/relay.ts). Pure.
 */
import { join } from 'node:path';
import type { VirtualMachineOptions } from '../../rpc/index.ts';
import {
  converterContext,
  type Arch,
  type ConverterContext,
  type ConverterContextOptions,
  type Smbios,
} from '../converter/index.ts';

export interface HostFacts {
  readonly root: string;
  readonly arch: Arch;
  readonly emulation: boolean;
  /** Usable custom CPU models for the chosen accelerator (domain capabilities). */
  readonly hostCpuModels?: readonly string[];
  /** The most vCPUs libvirt allows a q35 domain (domain capabilities `<vcpu max>`). */
  readonly maxVcpus?: number;
  /** Whether the ephemeral disk directory takes O_DIRECT. */
  readonly directIo: boolean;
}

/** QEMU's end of the serial console, next to the public socket the relay serves. */
function qemuSerialSocket(privateDir: string): string {
  return join(privateDir, 'virt-serial0-qemu');
}

function smbiosOf(opts: VirtualMachineOptions | undefined): Smbios | undefined {
  const s = opts?.VirtualMachineSMBios;
  if (s === undefined) return undefined;
  return {
    manufacturer: s.manufacturer,
    family: s.family,
    product: s.product,
    sku: s.sku,
    version: s.version,
  };
}

function formatsOf(o: VirtualMachineOptions | undefined): Map<string, 'raw' | 'qcow2'> {
  const out = new Map<string, 'raw' | 'qcow2'>();
  for (const [volume, info] of Object.entries(o?.DisksInfo ?? {})) {
    if (info.format === 'qcow2' || info.format === 'raw') out.set(volume, info.format);
  }
  return out;
}

export function syncContext(host: HostFacts, options: VirtualMachineOptions | undefined): ConverterContext {
  const cluster = options?.clusterConfig;
  const smbios = smbiosOf(options);
  const opts: ConverterContextOptions = {
    root: host.root,
    arch: host.arch,
    emulation: host.emulation,
    directIo: host.directIo,
    containerDiskFormats: formatsOf(options),
    preallocatedVolumes: new Set(options?.PreallocatedVolumes ?? []),
    ...(host.hostCpuModels !== undefined && { hostCpuModels: host.hostCpuModels }),
    ...(host.maxVcpus !== undefined && { maxVcpus: host.maxVcpus }),
    ...(smbios !== undefined && { smbios }),
    ...(options !== undefined && { memBalloonStatsPeriod: options.MemBalloonStatsPeriod }),
    ...(options !== undefined && {
      interfaceDomainAttachment: new Map(Object.entries(options.interfaceDomainAttachment)),
    }),
    ...(cluster !== undefined && {
      serialConsoleLog: !cluster.SerialConsoleLogDisabled,
      freePageReporting: !cluster.FreePageReportingDisabled,
      bochsForEfiGuests: cluster.BochsDisplayForEFIGuests,
    }),
  };
  const ctx = converterContext(opts);
  const layout = {
    ...ctx.layout,
    serialSocket: (uid: string): string => qemuSerialSocket(ctx.layout.vmiPrivateDir(uid)),
  };
  return { ...ctx, layout };
}
