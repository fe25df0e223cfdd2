/**
 * Firmware: the SMBIOS system entries (firmware UUID and serial, then the cluster's SMBIOS values), chassis
 * entries, and UEFI boot: the OVMF loader from the context (the secure-boot build when secureBoot, which is the
 * default for EFI) plus a per-VMI NVRAM file made from the matching variable-store template. Secure boot needs
 * SMM (kubevirt vmi-create-admitter.go).
 */
import path from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import type { DomainSpec, SysInfoEntry } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

function systemEntries(vmi: VirtualMachineInstance, ctx: ConverterContext): SysInfoEntry[] {
  const firmware = vmi.spec.domain.firmware;
  const entries: SysInfoEntry[] = [];
  if (firmware?.uuid !== undefined && firmware.uuid !== '')
    entries.push({ name: 'uuid', value: firmware.uuid });
  if (firmware?.serial !== undefined && firmware.serial !== '') {
    entries.push({ name: 'serial', value: firmware.serial });
  }
  const smbios = ctx.smbios;
  if (smbios !== undefined) {
    entries.push(
      { name: 'manufacturer', value: smbios.manufacturer },
      { name: 'family', value: smbios.family },
      { name: 'product', value: smbios.product },
      { name: 'sku', value: smbios.sku },
      { name: 'version', value: smbios.version },
    );
  }
  return entries;
}

function chassisEntries(vmi: VirtualMachineInstance): SysInfoEntry[] {
  const chassis = vmi.spec.domain.chassis;
  if (chassis === undefined) return [];
  return (['manufacturer', 'version', 'serial', 'asset', 'sku'] as const).map((name) => ({
    name,
    value: chassis[name] ?? '',
  }));
}

function smmEnabled(vmi: VirtualMachineInstance): boolean {
  const smm = vmi.spec.domain.features?.smm;
  return smm !== undefined && smm.enabled !== false;
}

/** Whether the EFI guest boots securely (the default); secure boot needs SMM. */
function secureBoot(vmi: VirtualMachineInstance): boolean {
  const bootloader = vmi.spec.domain.firmware?.bootloader;
  if (bootloader?.bios !== undefined) {
    throw new ConversionError('spec.domain.firmware.bootloader', 'set either bios or efi, not both');
  }
  const secure = bootloader?.efi?.secureBoot ?? true;
  if (secure && !smmEnabled(vmi)) {
    throw new ConversionError(
      'spec.domain.features.smm',
      'EFI SecureBoot is enabled. SecureBoot requires SMM, which is currently disabled.',
    );
  }
  return secure;
}

function efi(vmi: VirtualMachineInstance, domain: DomainSpec, ctx: ConverterContext): void {
  if (!isEfi(vmi)) return;
  const secure = secureBoot(vmi);
  domain.os.loader = {
    path: secure ? ctx.efi.secureBootCode : ctx.efi.code,
    readonly: 'yes',
    secure: secure ? 'yes' : 'no',
    type: 'pflash',
  };
  domain.os.nvram = {
    template: secure ? ctx.efi.secureBootVars : ctx.efi.vars,
    path: path.join(ctx.layout.nvramDir, `${vmi.metadata.name ?? ''}_VARS.fd`),
  };
}

export const firmwareConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  domain.sysinfo = { system: systemEntries(vmi, ctx), chassis: chassisEntries(vmi) };
  efi(vmi, domain, ctx);
});

export function isEfi(vmi: VirtualMachineInstance): boolean {
  return vmi.spec.domain.firmware?.bootloader?.efi !== undefined;
}
