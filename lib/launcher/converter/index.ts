/** VMI → libvirt domain XML for the launcher (pure): toDomain, toDomainXml and the context they need. */
export { toDomain, toDomainXml } from './convert.ts';
export {
  converterContext,
  isArch,
  type Arch,
  type ConverterContext,
  type ConverterContextOptions,
  type PodLink,
  type Smbios,
} from './context.ts';
export type * from './domain-spec.ts';
export { emptyDevices } from './domain-spec.ts';
export { domainXml } from './domain-xml.ts';
export { devicesXml } from './devices-xml.ts';
export { claimImages, type ClaimImage } from './disks.ts';
export { renderXml, type XmlElement } from './xml.ts';
export { virtioMemOf } from './memory.ts';
export { cpuTopology, vcpuCount } from './cpu-topology.ts';
export { ConversionError } from './errors.ts';
