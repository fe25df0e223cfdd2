/**
 * VMI → libvirt domain (kubevirt Convert_v1_VirtualMachineInstance_To_api_Domain): the configurators run in
 * order over an empty domain. The VMI is expected as the API serves it (KubeVirt's defaults applied, as its
 * mutating webhook does); it is not modified. Pure: same VMI and context, same domain.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { agentChannelConfigurator } from './agent-channel.ts';
import { balloonConfigurator } from './balloon.ts';
import { clockConfigurator } from './clock.ts';
import type { Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import { consoleConfigurator } from './console.ts';
import { controllersConfigurator } from './controllers.ts';
import { cpuModelConfigurator } from './cpu-model.ts';
import { cpuTopologyConfigurator } from './cpu-topology.ts';
import { disksConfigurator } from './disks.ts';
import { downwardMetricsConfigurator } from './downward-metrics.ts';
import { emptyDomain, type DomainSpec } from './domain-spec.ts';
import { domainXml } from './domain-xml.ts';
import { featuresConfigurator } from './features.ts';
import { filesystemsConfigurator } from './filesystems.ts';
import { firmwareConfigurator } from './firmware.ts';
import { graphicsConfigurator } from './graphics.ts';
import { hostDevicesConfigurator } from './host-devices.ts';
import { identityConfigurator } from './identity.ts';
import { interfacesConfigurator } from './interfaces.ts';
import { ioThreadsConfigurator } from './iothreads.ts';
import { memoryConfigurator, memoryHotplugNumaConfigurator } from './memory.ts';
import { memoryBackingConfigurator } from './memory-backing.ts';
import { osConfigurator } from './os.ts';
import { rngConfigurator } from './rng.ts';
import { tpmConfigurator } from './tpm.ts';
import { unsupportedConfigurator } from './unsupported.ts';
import { watchdogConfigurator } from './watchdog.ts';

/**
 * In order: checks first; controllers after the disks, inputs and host devices they look at, IOThreads after
 * the disks and controllers; os before firmware; the memory backing after the vCPUs and the hotplug NUMA cell.
 */
const CONFIGURATORS: readonly Configurator[] = [
  unsupportedConfigurator,
  identityConfigurator,
  memoryConfigurator,
  cpuTopologyConfigurator,
  memoryHotplugNumaConfigurator,
  memoryBackingConfigurator,
  cpuModelConfigurator,
  osConfigurator,
  firmwareConfigurator,
  clockConfigurator,
  featuresConfigurator,
  disksConfigurator,
  interfacesConfigurator,
  hostDevicesConfigurator,
  agentChannelConfigurator,
  downwardMetricsConfigurator,
  graphicsConfigurator,
  consoleConfigurator,
  controllersConfigurator,
  ioThreadsConfigurator,
  balloonConfigurator,
  rngConfigurator,
  watchdogConfigurator,
  filesystemsConfigurator,
  tpmConfigurator,
];

/** The domain for a VMI; throws a ConversionError naming the VMI field that prevents it. */
export function toDomain(
  vmi: VirtualMachineInstance,
  ctx: ConverterContext,
  configurators: readonly Configurator[] = CONFIGURATORS,
): DomainSpec {
  const domain = emptyDomain();
  for (const c of configurators) c.configure(vmi, domain, ctx);
  return domain;
}

export function toDomainXml(vmi: VirtualMachineInstance, ctx: ConverterContext): string {
  return domainXml(toDomain(vmi, ctx));
}
