/**
 * The options the handler sends with SyncVirtualMachine (kubevirt pkg/virt-handler/vm.go syncVirtualMachine,
 * virtualMachineOptions): the cluster's SMBIOS values, the balloon statistics period, the preallocated volumes from
 * the VMI's volume status, and the cluster switches, read from the KubeVirt resource as virt-config reads them
 * (KubeVirt's defaults where it says nothing: a configured `smbios` replaces the default one whole). Pure.
 */
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { VirtualMachineOptions } from '../../rpc/index.ts';

export interface HandlerClusterConfig {
  readonly smbios: { manufacturer: string; family: string; product: string; sku: string; version: string };
  /** Seconds; 0 turns balloon statistics off. */
  readonly memBalloonStatsPeriod: number;
  readonly serialConsoleLogDisabled: boolean;
  readonly freePageReportingDisabled: boolean;
  readonly bochsDisplayForEfiGuests: boolean;
}

/** KubeVirt's defaults (virt-config: SMBIOS KubeVirt/KubeVirt/None, balloon period 10 s). */
export const DEFAULT_CLUSTER_CONFIG: HandlerClusterConfig = {
  smbios: { manufacturer: 'KubeVirt', family: 'KubeVirt', product: 'None', sku: '', version: '' },
  memBalloonStatsPeriod: 10,
  serialConsoleLogDisabled: false,
  freePageReportingDisabled: false,
  bochsDisplayForEfiGuests: false,
};

type Json = Readonly<Record<string, unknown>>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The handler's settings from the KubeVirt resource that configures the cluster (none: KubeVirt's defaults). */
export function handlerClusterConfig(kv: KubeVirt | undefined): HandlerClusterConfig {
  const c: Json = kv?.spec.configuration ?? {};
  const smbios = c['smbios'];
  const options = isJson(c['virtualMachineOptions']) ? c['virtualMachineOptions'] : {};
  const period = c['memBalloonStatsPeriod'];
  const gates = kv?.spec.configuration?.developerConfiguration?.featureGates ?? [];
  return {
    smbios: isJson(smbios)
      ? {
          manufacturer: text(smbios['manufacturer']),
          family: text(smbios['family']),
          product: text(smbios['product']),
          sku: text(smbios['sku']),
          version: text(smbios['version']),
        }
      : DEFAULT_CLUSTER_CONFIG.smbios,
    memBalloonStatsPeriod:
      typeof period === 'number' && Number.isInteger(period) && period >= 0
        ? period
        : DEFAULT_CLUSTER_CONFIG.memBalloonStatsPeriod,
    serialConsoleLogDisabled: options['disableSerialConsoleLog'] !== undefined,
    freePageReportingDisabled: options['disableFreePageReporting'] !== undefined,
    bochsDisplayForEfiGuests: gates.includes('BochsDisplayForEFIGuests'),
  };
}

function preallocatedVolumes(vmi: VirtualMachineInstance): string[] {
  return (vmi.status?.volumeStatus ?? [])
    .filter((v) => v.persistentVolumeClaimInfo?.preallocated === true)
    .map((v) => v.name);
}

export function syncOptions(vmi: VirtualMachineInstance, cfg: HandlerClusterConfig): VirtualMachineOptions {
  return VirtualMachineOptions.fromPartial({
    VirtualMachineSMBios: { ...cfg.smbios },
    MemBalloonStatsPeriod: cfg.memBalloonStatsPeriod,
    PreallocatedVolumes: preallocatedVolumes(vmi),
    clusterConfig: {
      ExpandDisksEnabled: false,
      FreePageReportingDisabled: cfg.freePageReportingDisabled,
      BochsDisplayForEFIGuests: cfg.bochsDisplayForEfiGuests,
      SerialConsoleLogDisabled: cfg.serialConsoleLogDisabled,
    },
  });
}
