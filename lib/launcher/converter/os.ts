/**
 * `<os>`: guest architecture and machine type (q35 on amd64 by default), SMBIOS from sysinfo on amd64, the boot
 * menu a paused start needs, SeaBIOS serial output, and direct kernel boot: the kernel and initrd a kernelBoot
 * container image provides (`<kernelBootDir>/<kernelPath>`, where the Pod mounts that image) and the kernel
 * command line.
 */
import path from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { Arch, ConverterContext } from './context.ts';
import type { Os } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

const GUEST_ARCH: Readonly<Record<Arch, string>> = { amd64: 'x86_64', arm64: 'aarch64', s390x: 's390x' };
const DEFAULT_MACHINE: Readonly<Record<Arch, string>> = {
  amd64: 'q35',
  arm64: 'virt',
  s390x: 's390-ccw-virtio',
};
const BOOT_MENU_TIMEOUT_MS = 10_000;

function kernelArtifacts(vmi: VirtualMachineInstance, ctx: ConverterContext, os: Os): void {
  const container = vmi.spec.domain.firmware?.kernelBoot?.container;
  if (container === undefined) return;
  const artifact = (p: string): string => path.join(ctx.layout.kernelBootDir, path.posix.normalize(`/${p}`));
  const { kernelPath = '', initrdPath = '' } = container;
  if (kernelPath === '' && initrdPath === '') {
    throw new ConversionError(
      'spec.domain.firmware.kernelBoot.container',
      'kernelPath or initrdPath must be set',
    );
  }
  if (kernelPath !== '') os.kernel = artifact(kernelPath);
  if (initrdPath !== '') os.initrd = artifact(initrdPath);
}

function kernelBoot(vmi: VirtualMachineInstance, ctx: ConverterContext, os: Os): void {
  kernelArtifacts(vmi, ctx, os);
  const args = vmi.spec.domain.firmware?.kernelBoot?.kernelArgs ?? '';
  if (args === '') return;
  if (os.kernel === undefined) {
    throw new ConversionError(
      'spec.domain.firmware.kernelBoot.kernelArgs',
      'kernel arguments need a kernel (kernelBoot.container.kernelPath)',
    );
  }
  os.cmdline = args;
}

function machineType(vmi: VirtualMachineInstance, arch: Arch): string {
  const machine = vmi.spec.domain.machine?.type ?? '';
  return machine === '' ? DEFAULT_MACHINE[arch] : machine;
}

export const osConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const arch = vmi.spec.architecture ?? '';
  if (arch !== '' && arch !== ctx.arch) {
    throw new ConversionError('spec.architecture', `${arch} guests cannot run on this ${ctx.arch} host`);
  }
  const os: Os = { type: { arch: GUEST_ARCH[ctx.arch], machine: machineType(vmi, ctx.arch) } };
  if (ctx.arch === 'amd64') os.smbiosMode = 'sysinfo';
  if (vmi.spec.startStrategy === 'Paused') os.bootMenu = { enable: 'yes', timeoutMs: BOOT_MENU_TIMEOUT_MS };
  if (vmi.spec.domain.firmware?.bootloader?.bios?.useSerial === true) {
    // libvirt refuses BIOS serial output without a serial port ("need at least one serial port").
    if (vmi.spec.domain.devices.autoattachSerialConsole === false) {
      throw new ConversionError(
        'spec.domain.firmware.bootloader.bios.useSerial',
        'needs the serial console, which spec.domain.devices.autoattachSerialConsole turns off',
      );
    }
    os.biosUseSerial = true;
  }
  kernelBoot(vmi, ctx, os);
  domain.os = { ...domain.os, ...os };
});
