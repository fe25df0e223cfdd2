/**
 * The options every reply to one interface's client carries (kubevirt pkg/network/dhcp/server
 * prepareDHCPOptions, tag v1.6.2), in code order, and the check the server runs on a configuration before it
 * listens, so a bad one fails the start and never a reply.
 */
import type { CustomDhcpOptions, DhcpConfig } from './config.ts';
import { domainName, searchDomainsWithSubdomain } from './config.ts';
import { ipv4Bytes } from './ipv4.ts';
import { macBytes, type DhcpOption } from './message.ts';
import {
  addressesOption,
  classlessRoutesOption,
  domainSearchOption,
  leaseTimeOption,
  mtuOption,
  OPTION,
  PRIVATE_OPTION_CODES,
  privateOption,
  subnetMaskOption,
  textOption,
} from './options.ts';

/** The VMI's dhcpOptions; like KubeVirt, private options outside 224–254 are left out and the last of a code wins. */
function customOptions(custom: CustomDhcpOptions): DhcpOption[] {
  const options: DhcpOption[] = [];
  if (custom.tftpServerName !== undefined && custom.tftpServerName !== '') {
    options.push(textOption(OPTION.tftpServerName, custom.tftpServerName));
  }
  if (custom.bootFileName !== undefined && custom.bootFileName !== '') {
    options.push(textOption(OPTION.bootFileName, custom.bootFileName));
  }
  if (custom.ntpServers !== undefined && custom.ntpServers.length > 0) {
    options.push(addressesOption(OPTION.ntpServers, custom.ntpServers));
  }
  for (const p of custom.privateOptions ?? []) {
    if (p.option >= PRIVATE_OPTION_CODES.first && p.option <= PRIVATE_OPTION_CODES.last) {
      options.push(privateOption(p.option, p.value));
    }
  }
  return options;
}

/**
 * Subnet mask, router (with a gateway), DNS servers, hostname, domain name (the longest search domain, which
 * Windows uses for its DNS suffix), MTU, domain search, classless routes (when there are some) and the VMI's
 * own options. The message type, server identifier and lease time are reply.ts's.
 */
export function configOptions(config: DhcpConfig): DhcpOption[] {
  const search = searchDomainsWithSubdomain(config.searchDomains, config.subdomain);
  const domain = domainName(search);
  const options = [
    subnetMaskOption(config.prefixLength),
    ...(config.gateway !== undefined ? [addressesOption(OPTION.router, [config.gateway])] : []),
    ...(config.dns.length > 0 ? [addressesOption(OPTION.dnsServers, config.dns)] : []),
    ...(config.hostname !== '' ? [textOption(OPTION.hostname, config.hostname)] : []),
    ...(domain !== undefined ? [textOption(OPTION.domainName, domain)] : []),
    mtuOption(config.mtu),
    ...(search.length > 0 ? [domainSearchOption(search)] : []),
    ...(config.routes !== undefined && config.routes.length > 0
      ? [classlessRoutesOption(config.routes)]
      : []),
    ...(config.dhcpOptions !== undefined ? customOptions(config.dhcpOptions) : []),
  ];
  const byCode = new Map(options.map((o) => [o.code, o]));
  return [...byCode.values()].sort((a, b) => a.code - b.code);
}

/** Throws the DhcpValueError a reply for this configuration would meet. */
export function checkConfig(config: DhcpConfig): void {
  macBytes(config.clientMac, 'clientMac');
  ipv4Bytes(config.clientIp, 'clientIp');
  ipv4Bytes(config.serverIp, 'serverIp');
  ipv4Bytes(config.broadcastAddress, 'broadcastAddress');
  leaseTimeOption(config.leaseSeconds);
  configOptions(config);
}
