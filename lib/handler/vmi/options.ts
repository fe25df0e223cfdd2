/**
 * The options the handler sends with SyncVirtualMachine (kubevirt pkg/virt-handler/vm.go syncVirtualMachine,
 * virtualMachineOptions): the cluster's SMBIOS values, the balloon statistics period, the preallocated volumes from
 * the VMI's volume status, how the domain attaches each interface (a tap, for masquerade, bridge and tap
 * binding plugins), and the cluster switches, read from the KubeVirt resource as virt-config reads them
 * (KubeVirt's defaults where it says nothing: a configured `smbios` replaces the default one whole). Pure.
 */
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { domainAttachmentByInterfaceName, type BindingPlugin } from '../../network/pod-network-interfaces.ts';
import { VirtualMachineOptions } from '../../rpc/index.ts';
import type { MigrationConfiguration } from '../migration/options.ts';

export interface HandlerClusterConfig {
  readonly smbios: { manufacturer: string; family: string; product: string; sku: string; version: string };
  /** Seconds; 0 turns balloon statistics off. */
  readonly memBalloonStatsPeriod: number;
  readonly serialConsoleLogDisabled: boolean;
  readonly freePageReportingDisabled: boolean;
  readonly bochsDisplayForEfiGuests: boolean;
  /** `network.binding`: the binding plugins by name. */
  readonly networkBindings: Readonly<Record<string, BindingPlugin>>;
  /** `migrations`: what a migration of a VMI without its own configuration is allowed. */
  readonly migrations?: MigrationConfiguration;
}

/** KubeVirt's defaults (virt-config: SMBIOS KubeVirt/KubeVirt/None, balloon period 10 s). */
export const DEFAULT_CLUSTER_CONFIG: HandlerClusterConfig = {
  smbios: { manufacturer: 'KubeVirt', family: 'KubeVirt', product: 'None', sku: '', version: '' },
  memBalloonStatsPeriod: 10,
  serialConsoleLogDisabled: false,
  freePageReportingDisabled: false,
  bochsDisplayForEfiGuests: false,
  networkBindings: {},
};

type Json = Readonly<Record<string, unknown>>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * `network.binding` of the configuration: each plugin's domainAttachmentType (what the domain needs of it) and
 * whether it has a `migration` section (any method: KubeVirt only asks whether it is there).
 */
function bindingsOf(c: Json): Record<string, BindingPlugin> {
  const network = isJson(c['network']) ? c['network'] : {};
  const binding = isJson(network['binding']) ? network['binding'] : {};
  const out: Record<string, BindingPlugin> = {};
  for (const [name, plugin] of Object.entries(binding)) {
    const type = isJson(plugin) ? text(plugin['domainAttachmentType']) : '';
    const migration = isJson(plugin) && isJson(plugin['migration']);
    out[name] = { ...(type !== '' && { domainAttachmentType: type }), ...(migration && { migration }) };
  }
  return out;
}

/** `migrations` of the configuration, taken as it is (options.ts of migration/ reads each field). */
const migrationsOf = (c: Json): { migrations?: MigrationConfiguration } =>
  isJson(c['migrations']) ? { migrations: c['migrations'] } : {};

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
    networkBindings: bindingsOf(c),
    ...migrationsOf(c),
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
    interfaceDomainAttachment: domainAttachmentByInterfaceName(
      vmi.spec.domain.devices.interfaces ?? [],
      cfg.networkBindings,
    ),
    clusterConfig: {
      ExpandDisksEnabled: false,
      FreePageReportingDisabled: cfg.freePageReportingDisabled,
      BochsDisplayForEFIGuests: cfg.bochsDisplayForEfiGuests,
      SerialConsoleLogDisabled: cfg.serialConsoleLogDisabled,
    },
  });
}
