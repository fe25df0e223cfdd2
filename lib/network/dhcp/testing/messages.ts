/**
 * Fixtures for the DHCP server's tests: a masquerade-style configuration and the requests a guest sends,
 * each changed by the fields a case gives.
 */
import type { DhcpConfig } from '../config.ts';
import { BOOTREQUEST, type DhcpMessage, type DhcpOption } from '../message.ts';
import { messageTypeOption, type MessageType } from '../options.ts';

const GUEST_MAC = '02:00:00:0a:00:02';

/** Changes to the fixture configuration; a field set to undefined is left out. */
export type ConfigChange = { [K in keyof DhcpConfig]?: DhcpConfig[K] | undefined };

export function newDhcpConfig(change: ConfigChange = {}): DhcpConfig {
  const config = {
    clientMac: GUEST_MAC,
    clientIp: '10.0.2.2',
    prefixLength: 24,
    gateway: '10.0.2.1',
    serverIp: '10.0.2.1',
    broadcastAddress: '10.0.2.255',
    mtu: 1500,
    dns: ['10.96.0.10'],
    searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
    hostname: 'vmi-a',
    leaseSeconds: 86_313_600,
    ...change,
  };
  return Object.fromEntries(
    Object.entries(config).filter(([, v]) => v !== undefined),
  ) as unknown as DhcpConfig;
}

/** A request of `type` from the guest, with these options after the message type. */
export function newRequest(
  type: MessageType,
  options: readonly DhcpOption[] = [],
  change: Partial<DhcpMessage> = {},
): DhcpMessage {
  return {
    op: BOOTREQUEST,
    hops: 0,
    xid: 0x1234abcd,
    secs: 0,
    broadcast: false,
    ciaddr: '0.0.0.0',
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: GUEST_MAC,
    sname: '',
    file: '',
    options: [messageTypeOption(type), ...options],
    ...change,
  };
}

/** An option carrying one IPv4 address (requested address, server identifier). */
export function addressOption(code: number, address: string): DhcpOption {
  return { code, data: Buffer.from(address.split('.').map(Number)) };
}
