/** VMI → libvirt domain XML for the launcher (pure): toDomain, toDomainXml and the context they need. */
export { CONFIGURATORS, toDomain, toDomainXml } from './convert.ts';
export { configurator, type Configurator } from './configurator.ts';
export {
  ARCHES,
  converterContext,
  EMULATED_CPU_MODELS,
  isArch,
  type Arch,
  type BlockSize,
  type ConverterContext,
  type ConverterContextOptions,
  type EfiFiles,
  type Smbios,
} from './context.ts';
export type * from './domain-spec.ts';
export { emptyDomain, userAlias } from './domain-spec.ts';
export { domainXml, domainXmlTree, KUBEVIRT_METADATA_NS } from './domain-xml.ts';
export { devicesXml, diskXml, interfaceXml, USER_ALIAS_PREFIX } from './devices-xml.ts';
export { atField, ConversionError, isConversionError, type ConversionErrorReason } from './errors.ts';
export { GUEST_AGENT_CHANNEL } from './agent-channel.ts';
export { escapeAttr, escapeText, renderXml, el, textEl, type XmlElement } from './xml.ts';
