/**
 * Identity, machine, firmware and lifecycle of a VMI spec (KubeVirt vmi-create-admitter.go
 * validateHostNameNotConformingToDNSLabelRules, validateSubdomainDNSSubdomainRules, validateEmulatedMachine,
 * validateFirmwareACPI, validateStartStrategy, validateArchitecture, validateLiveMigration, validateDomainSpec's
 * firmware and SecureBoot checks, validateLaunchSecurity). The ACPI causes sit at `spec.acpi`, as KubeVirt's.
 */
import type { Firmware } from '../v1/domain.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { child, invalid, required, type Causes } from './causes.ts';
import { clusterOf, DEFAULT_EMULATED_MACHINES, gateEnabled, GATES } from './context.ts';
import { isDns1123Label, isDns1123Subdomain } from './dns.ts';
import { absolutePathCauses } from './paths.ts';
import type { SpecRule } from './rule.ts';

const EVICTION_STRATEGIES: readonly string[] = ['None', 'LiveMigrate', 'LiveMigrateIfPossible', 'External'];

export const hostname: SpecRule = (spec, _ctx, path) => {
  const errs = spec.hostname === undefined || spec.hostname === '' ? [] : isDns1123Label(spec.hostname);
  if (errs.length === 0) return [];
  const f = child(path, 'hostname');
  return [invalid(f, `${f} does not conform to the kubernetes DNS_LABEL rules : ${errs.join(', ')}`)];
};

export const subdomain: SpecRule = (spec, _ctx, path) => {
  const errs =
    spec.subdomain === undefined || spec.subdomain === '' ? [] : isDns1123Subdomain(spec.subdomain);
  if (errs.length === 0) return [];
  const f = child(path, 'subdomain');
  return [invalid(f, `${f} does not conform to the kubernetes DNS_SUBDOMAIN rules : ${errs.join(', ')}`)];
};

/** Go's filepath.Match for the `*` and `?` wildcards KubeVirt's patterns use. */
function globMatch(pattern: string, name: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${re}$`).test(name);
}

export const emulatedMachine: SpecRule = (spec, ctx, path) => {
  const type = spec.domain.machine?.type ?? '';
  if (type === '') return [];
  const arch = ['arm64', 'ppc64le', 's390x'].includes(spec.architecture ?? '')
    ? (spec.architecture ?? '')
    : 'amd64';
  const patterns = ctx.emulatedMachines?.[arch] ?? DEFAULT_EMULATED_MACHINES[arch] ?? [];
  if (patterns.some((p) => globMatch(p, type))) return [];
  const f = child(path, 'domain', 'machine', 'type');
  return [invalid(f, `${f} is not supported: ${type} (allowed values: [${patterns.join(' ')}])`)];
};

export const firmwareAcpi: SpecRule = (spec, _ctx, path) => {
  const acpi = spec.domain.firmware?.acpi;
  if (acpi === undefined) return [];
  const f = child(path, 'acpi');
  const slic = acpi.slicNameRef ?? '';
  const msdm = acpi.msdmNameRef ?? '';
  if (slic === '' && msdm === '')
    return [invalid(f, 'ACPI was set but no SLIC nor MSDM volume reference was set')];
  const ref = (name: string, key: string): Causes => {
    if (name === '') return [];
    const volume = (spec.volumes ?? []).find((v) => v.name === name);
    if (volume === undefined) return [invalid(child(f, key), `${f} does not have a matching Volume.`)];
    return volume.secret !== undefined
      ? []
      : [invalid(child(f, key), `${f} refers to Volume of unsupported type.`)];
  };
  return [...ref(slic, 'slicNameRef'), ...ref(msdm, 'msdmNameRef')];
};

export const startStrategy: SpecRule = (spec, _ctx, path) => {
  const strategy: string | undefined = spec.startStrategy;
  if (strategy === undefined) return [];
  const f = child(path, 'startStrategy');
  if (strategy !== 'Paused') return [invalid(f, `${f} is set with an unrecognized option: ${strategy}`)];
  if (spec.livenessProbe === undefined) return [];
  const probe = child(path, 'livenessProbe');
  return [
    invalid(f, `either ${f} or ${probe} should be provided.Pausing VMI with LivenessProbe is not supported`),
  ];
};

export const architectureGate: SpecRule = (spec, ctx, path) => {
  const arch = spec.architecture ?? '';
  if (
    arch === '' ||
    arch === (ctx.apiArchitecture ?? 'amd64') ||
    gateEnabled(ctx, GATES.MULTI_ARCHITECTURE)
  ) {
    return [];
  }
  const f = child(path, 'architecture');
  return [
    required(
      f,
      `${GATES.MULTI_ARCHITECTURE} feature gate is not enabled in kubevirt-config, invalid entry ${f}`,
    ),
  ];
};

export const evictionStrategy: SpecRule = (spec, ctx, path) => {
  const strategy: string | undefined = spec.evictionStrategy ?? clusterOf(ctx).evictionStrategy;
  if (strategy === undefined || EVICTION_STRATEGIES.includes(strategy)) return [];
  const f = child(path, 'evictionStrategy');
  return [invalid(f, `${f} is set with an unrecognized option: ${strategy}`)];
};

const efiBoot = (fw: Firmware | undefined): boolean => fw?.bootloader?.efi !== undefined;
const secureBoot = (fw: Firmware | undefined): boolean =>
  efiBoot(fw) && fw?.bootloader?.efi?.secureBoot !== false;

function kernelBootCauses(fw: Firmware, f: string): Causes {
  const kb = fw.kernelBoot;
  if (kb === undefined) return [];
  const kbF = child(f, 'kernelBoot');
  const container = kb.container;
  if (container === undefined) {
    return (kb.kernelArgs ?? '') === ''
      ? []
      : [invalid(child(kbF, 'kernelArgs'), 'kernel arguments cannot be provided without an external kernel')];
  }
  const c = child(kbF, 'container');
  const kernel = container.kernelPath ?? '';
  const initrd = container.initrdPath ?? '';
  return [
    ...(container.image === '' ? [required(child(c, 'image'), `${c} must be defined with an image`)] : []),
    ...(kernel === '' && initrd === ''
      ? [required(c, `${c} must be defined with at least one of the following: kernelPath, initrdPath`)]
      : []),
    ...(kernel === '' ? [] : absolutePathCauses(child(c, 'kernelPath'), kernel)),
    ...(initrd === '' ? [] : absolutePathCauses(child(c, 'initrdPath'), initrd)),
  ];
}

/** validateDomainSpec after the disks: bootloader, kernel boot, SecureBoot needing SMM. */
export const firmware: SpecRule = (spec, _ctx, path) => {
  const fw = spec.domain.firmware;
  const domain = child(path, 'domain');
  const f = child(domain, 'firmware');
  const causes: Causes = [];
  if (fw !== undefined) {
    const bootloader = fw.bootloader;
    if (bootloader?.efi !== undefined && bootloader.bios !== undefined) {
      const b = child(f, 'bootloader');
      causes.push(invalid(b, `${b} has both EFI and BIOS configured, but they are mutually exclusive.`));
    }
    causes.push(...kernelBootCauses(fw, f));
  }
  const smm = spec.domain.features?.smm;
  if (secureBoot(fw) && (smm === undefined || smm.enabled === false)) {
    causes.push(
      invalid(
        domain,
        `${domain} has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.`,
      ),
    );
  }
  return causes;
};

function sevCauses(spec: VirtualMachineInstanceSpec, sev: Record<string, unknown>, f: string): Causes {
  const fw = spec.domain.firmware;
  const causes: Causes = [];
  if (!efiBoot(fw)) causes.push(invalid(f, 'SEV requires OVMF (UEFI)'));
  else if (secureBoot(fw)) causes.push(invalid(f, 'SEV does not work along with SecureBoot'));
  if (sev['attestation'] !== undefined && spec.startStrategy !== 'Paused') {
    causes.push(invalid(f, "SEV attestation requires VMI StartStrategy 'Paused'"));
  }
  for (const iface of spec.domain.devices.interfaces ?? []) {
    if (iface.bootOrder !== undefined)
      causes.push(invalid(f, `SEV does not work with bootable NICs: ${iface.name}`));
  }
  return causes;
}

export const launchSecurity: SpecRule = (spec, ctx, path) => {
  const ls = spec.domain.launchSecurity;
  if (ls === undefined) return [];
  const f = child(path, 'launchSecurity');
  const causes: Causes = [];
  const disabled = (gate: string): string => `${gate} feature gate is not enabled in kubevirt-config`;
  if (!gateEnabled(ctx, GATES.SECURE_EXECUTION) && spec.architecture === 's390x') {
    causes.push(invalid(f, disabled(GATES.SECURE_EXECUTION)));
  }
  const sev = ls['sev'];
  if (typeof sev !== 'object' || sev === null) return causes;
  if (!gateEnabled(ctx, GATES.SEV)) return [...causes, invalid(f, disabled(GATES.SEV))];
  return [...causes, ...sevCauses(spec, sev as Record<string, unknown>, f)];
};
