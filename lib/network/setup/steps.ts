/**
 * The steps of a Pod network setup and their rendering: link and address changes become `ip -batch` lines
 * (one iproute2 run), sysctls become file writes under /proc/sys/net of the namespace, NAT becomes one nftables
 * script. They stand for what KubeVirt's nmstate driver applies with netlink, procsys and virt-chroot
 * create-tap (pkg/network/driver/nmstate spec.go Apply, tag v1.6.2).
 */
import { isIP, isIPv4 } from 'node:net';
import { KvError } from '../../kernel/errors/errors.ts';
import type { IpAddress, IpFamily } from './addresses.ts';

export type Step =
  | { readonly kind: 'add-bridge'; readonly name: string; readonly mac?: string; readonly mtu?: number }
  /** A persistent tap with virtio-net headers, no packet info, multi-queue on request (create-tap's flags). */
  | {
      readonly kind: 'add-tap';
      readonly name: string;
      readonly owner: number;
      readonly multiQueue: boolean;
      readonly mtu: number;
    }
  /**
   * A link that only holds a name, a MAC and addresses and is never up: `dummy`, or `ifb` on a kernel without
   * dummy links (this project's test machine; an ifb link does nothing until traffic control redirects to it).
   */
  | {
      readonly kind: 'add-dummy';
      readonly name: string;
      readonly mac: string;
      readonly mtu: number;
      readonly linkType: PlaceholderLinkType;
    }
  | { readonly kind: 'set-down'; readonly link: string }
  | { readonly kind: 'rename'; readonly link: string; readonly to: string }
  | { readonly kind: 'set-mac'; readonly link: string; readonly mac: string }
  | { readonly kind: 'flush-addresses'; readonly link: string }
  | { readonly kind: 'add-address'; readonly link: string; readonly address: IpAddress }
  | { readonly kind: 'enslave'; readonly link: string; readonly bridge: string }
  /** The bridge no longer learns source MACs on this port. */
  | { readonly kind: 'learning-off'; readonly link: string }
  | { readonly kind: 'set-up'; readonly link: string }
  /** A broadcast route in the local table: datagrams to address leave link as Ethernet broadcasts. */
  | { readonly kind: 'broadcast-route'; readonly address: string; readonly link: string }
  /** A sysctl below /proc/sys/net (`ipv4/ip_forward`). */
  | { readonly kind: 'sysctl'; readonly key: string; readonly value: string }
  | { readonly kind: 'nat'; readonly family: IpFamily; readonly script: string };

export type PlaceholderLinkType = 'dummy' | 'ifb';

export interface SysctlWrite {
  readonly path: string;
  readonly value: string;
}

interface RenderedSteps {
  /** `ip -batch` lines, run first. */
  readonly ipBatch: readonly string[];
  /** Written next, in order, inside the namespace. */
  readonly sysctls: readonly SysctlWrite[];
  /** The NAT of every family as one nftables transaction, run last; '' when there is none. */
  readonly nftScript: string;
}

/** Linux's rule for a link name (dev_valid_name): 1-15 characters, no `/`, `:` or whitespace, not `.`/`..`. */
const LINK_NAME = /^(?!\.\.?$)[^/:\s]{1,15}$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const SYSCTL_KEY = /^(?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_-]+$/;

function name(link: string): string {
  if (!LINK_NAME.test(link))
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(link)} is not a link name`);
  return link;
}

function mac(address: string): string {
  if (!MAC.test(address))
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(address)} is not a MAC address`);
  return address;
}

/** The sysctl's file; a key that leaves /proc/sys/net (`..`) is refused. */
export function sysctlPath(key: string): string {
  if (!SYSCTL_KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(key)} is not a network sysctl`);
  }
  return `/proc/sys/net/${key}`;
}

function address(a: IpAddress): string {
  const valid = isIP(a.address) !== 0 && Number.isInteger(a.prefixLength) && a.prefixLength >= 0;
  if (!valid) throw new KvError('KV_ERR_INVALID', `${JSON.stringify(a)} is not an address with a prefix`);
  return `${a.address}/${a.prefixLength}`;
}

function ipv4(text: string): string {
  if (!isIPv4(text)) throw new KvError('KV_ERR_INVALID', `${JSON.stringify(text)} is not an IPv4 address`);
  return text;
}

function bridgeLine(s: Extract<Step, { kind: 'add-bridge' }>): string {
  const address = s.mac === undefined ? '' : ` address ${mac(s.mac)}`;
  const mtu = s.mtu === undefined ? '' : ` mtu ${s.mtu}`;
  return `link add name ${name(s.name)}${address}${mtu} type bridge`;
}

function tapLines(s: Extract<Step, { kind: 'add-tap' }>): string[] {
  const id = String(s.owner);
  const queues = s.multiQueue ? ' multi_queue' : '';
  return [
    `tuntap add dev ${name(s.name)} mode tap user ${id} group ${id} vnet_hdr${queues}`,
    `link set dev ${s.name} mtu ${s.mtu}`,
  ];
}

type IpRenderers = { readonly [K in Step['kind']]: (step: Extract<Step, { kind: K }>) => string[] };

const IP_LINES: IpRenderers = {
  'add-bridge': (s) => [bridgeLine(s)],
  'add-tap': tapLines,
  'add-dummy': (s) => [
    `link add name ${name(s.name)} address ${mac(s.mac)} mtu ${s.mtu} type ${s.linkType === 'ifb' ? 'ifb' : 'dummy'}`,
  ],
  'set-down': (s) => [`link set dev ${name(s.link)} down`],
  rename: (s) => [`link set dev ${name(s.link)} name ${name(s.to)}`],
  'set-mac': (s) => [`link set dev ${name(s.link)} address ${mac(s.mac)}`],
  'flush-addresses': (s) => [`address flush dev ${name(s.link)}`],
  'add-address': (s) => [`address add ${address(s.address)} dev ${name(s.link)}`],
  enslave: (s) => [`link set dev ${name(s.link)} master ${name(s.bridge)}`],
  'learning-off': (s) => [`link set dev ${name(s.link)} type bridge_slave learning off`],
  'set-up': (s) => [`link set dev ${name(s.link)} up`],
  'broadcast-route': (s) => [`route add broadcast ${ipv4(s.address)} dev ${name(s.link)} table local`],
  sysctl: () => [],
  nat: () => [],
};

const ipLines = (step: Step): string[] => (IP_LINES[step.kind] as (s: Step) => string[])(step);

/** The three parts of a plan, each in the steps' order. */
export function renderSteps(steps: readonly Step[]): RenderedSteps {
  return {
    ipBatch: steps.flatMap(ipLines),
    sysctls: steps.flatMap((s) => (s.kind === 'sysctl' ? [{ path: sysctlPath(s.key), value: s.value }] : [])),
    nftScript: steps.flatMap((s) => (s.kind === 'nat' ? [s.script] : [])).join(''),
  };
}
