/**
 * The options the handler sends with SyncVirtualMachine (kubevirt pkg/virt-handler/vm.go syncVirtualMachine,
 * virtualMachineOptions): the cluster's SMBIOS values (KubeVirt's defaults unless configured), the balloon
 * statistics period, the preallocated volumes from the VMI's volume status, and the cluster switches. Pure.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
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
