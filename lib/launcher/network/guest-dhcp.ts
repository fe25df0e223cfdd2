/**
 * The DHCP servers of the launcher (kubevirt pkg/network/setup's DHCP configurator, started by virt-launcher for
 * each masquerade and bridge interface): one per interface on the Pod network with either binding, answering
 * the MAC the domain has, with the Pod's resolv.conf and the VMI's hostname. A masquerade guest gets its fixed
 * address and the Pod interface's MTU; a bridge guest gets what its pod interface had when the launcher started
 * (pod-interfaces.ts): the Pod's address, gateway, routes and MTU, none when it had no IPv4 address (no IPAM).
 * A masquerade interface whose Pod interface has a global IPv6 address also gets a DHCPv6 server on its bridge
 * (lib/network/dhcpv6: the guest's fixed fd10:0:2::2). A server keeps running across syncs; close() stops them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { bridgeDhcpConfig, masqueradeDhcpConfig, type DhcpConfig } from '../../network/dhcp/config.ts';
import { startDhcpServer, type DhcpServer, type DhcpServerOptions } from '../../network/dhcp/server.ts';
import { podNetworkInterfaces, type PodNetworkInterface } from '../../network/pod-network-interfaces.ts';
import { masqueradeDhcpv6Config } from '../../network/dhcpv6/config.ts';
import {
  startDhcpv6Server,
  type Dhcpv6Server,
  type Dhcpv6ServerOptions,
} from '../../network/dhcpv6/server.ts';
import { anyGlobalUnicast } from '../../network/setup/addresses.ts';
import { bridgeName } from '../../network/link-names.ts';
import { bridgeDhcp, MASQUERADE_BRIDGE_MAC } from '../../network/setup/plan.ts';
import type { DomainSpec } from '../converter/index.ts';
import type { PodInterfaces } from './pod-interfaces.ts';

export interface GuestDhcpOptions {
  /** The launcher's root ("/" in a Pod): its etc/resolv.conf and sys/class/net are read. */
  readonly root: string;
  readonly log: Logger;
  /** The Pod's interfaces when the launcher started (bridge binding); none by default. */
  readonly podInterfaces?: PodInterfaces;
  /** Default: lib/network/dhcp/server.ts startDhcpServer on 0.0.0.0:67. */
  readonly start?: (opts: DhcpServerOptions) => Promise<DhcpServer>;
  /** Default: lib/network/dhcpv6/server.ts startDhcpv6Server on [::]:547. */
  readonly startV6?: (opts: Dhcpv6ServerOptions) => Promise<Dhcpv6Server>;
}

async function podMtu(root: string, podInterface: string): Promise<number> {
  const path = join(root, 'sys/class/net', podInterface, 'mtu');
  const text = await readFile(path, 'utf8').catch((err: unknown) => {
    throw new KvError('KV_ERR_LAUNCHER', `the Pod has no interface ${podInterface}`, { cause: err });
  });
  const mtu = Number(text.trim());
  if (!Number.isInteger(mtu) || mtu <= 0) throw new KvError('KV_ERR_LAUNCHER', `${path} holds no MTU`);
  return mtu;
}

/** What both bindings' configurations take from the VMI, the Pod and the domain. */
type CommonInput = Omit<Parameters<typeof bridgeDhcpConfig>[0], 'lease' | 'interfaceIndex'>;

/** Where a bridge interface has no IPv4 address to lease: nothing runs, and the interface is not looked at again. */
const NOTHING_SERVED: DhcpServer = { port: 0, close: () => Promise.resolve() };

function definedMac(domain: DomainSpec, w: PodNetworkInterface): string {
  const mac = domain.devices.interfaces.find((i) => i.alias.name === w.iface.name)?.mac;
  if (mac === undefined) {
    throw new KvError('KV_ERR_INTERNAL', `interface ${w.iface.name} has no MAC in the defined domain`);
  }
  return mac;
}

const nonEmpty = (s: string | undefined): string | undefined => (s === '' ? undefined : s);

function guestInput(vmi: VirtualMachineInstance, resolvConf: string): Omit<CommonInput, 'clientMac'> {
  return {
    resolvConf,
    hostname: nonEmpty(vmi.spec.hostname) ?? vmi.metadata.name ?? '',
    ...(nonEmpty(vmi.spec.subdomain) !== undefined && { subdomain: vmi.spec.subdomain }),
  };
}

export class GuestDhcp {
  private readonly running = new Map<string, DhcpServer>();

  constructor(private readonly o: GuestDhcpOptions) {}

  /** Starts a server for each masquerade and bridge interface of the VMI not served yet; domain has the MACs. */
  async serve(vmi: VirtualMachineInstance, domain: DomainSpec): Promise<void> {
    const wanted = podNetworkInterfaces(vmi).filter(
      (w) => w.iface.masquerade !== undefined || w.iface.bridge !== undefined,
    );
    const pending = wanted
      .map((w) => ({ w, mac: definedMac(domain, w) }))
      .filter(({ w, mac }) => !this.running.has(mac) || this.wantsV6(w));
    if (pending.length === 0) return;
    const resolvConf = await readFile(join(this.o.root, 'etc/resolv.conf'), 'utf8').catch(() => '');
    const guest = guestInput(vmi, resolvConf);
    for (const { w, mac } of pending) {
      if (this.wantsV6(w)) await this.serveV6(w, resolvConf);
      if (this.running.has(mac)) continue;
      const common = {
        ...guest,
        clientMac: mac,
        ...(w.iface.dhcpOptions !== undefined && { dhcpOptions: w.iface.dhcpOptions }),
      };
      const config =
        w.iface.masquerade !== undefined
          ? await this.masqueradeConfig(w, common)
          : this.bridgeConfig(w, common);
      if (config === undefined) {
        this.running.set(mac, NOTHING_SERVED);
        continue;
      }
      const start = this.o.start ?? startDhcpServer;
      const log = this.o.log.with({ interface: w.iface.name });
      this.running.set(mac, await start({ config, address: '0.0.0.0', log }));
      log.info('DHCP server started', { mac, address: config.clientIp, mtu: config.mtu });
    }
  }

  private async masqueradeConfig(w: PodNetworkInterface, common: CommonInput): Promise<DhcpConfig> {
    const mtu = await podMtu(this.o.root, w.podInterfaceName);
    return masqueradeDhcpConfig({ ...common, network: w.network, networkIndex: w.networkIndex, mtu });
  }

  /** Whether w is a masquerade interface whose Pod interface has a global IPv6 address and no DHCPv6 server yet. */
  private wantsV6(w: PodNetworkInterface): boolean {
    const pod = this.o.podInterfaces?.get(w.podInterfaceName);
    const v6 = w.iface.masquerade !== undefined && pod !== undefined && anyGlobalUnicast(pod.ipv6);
    return v6 && !this.running.has(`v6/${w.iface.name}`);
  }

  /** The masquerade interface's DHCPv6 server on its bridge. */
  private async serveV6(w: PodNetworkInterface, resolvConf: string): Promise<void> {
    const key = `v6/${w.iface.name}`;
    const config = masqueradeDhcpv6Config({
      network: w.network,
      networkIndex: w.networkIndex,
      serverMac: MASQUERADE_BRIDGE_MAC,
      resolvConf,
    });
    const link = bridgeName(w.podInterfaceName);
    const log = this.o.log.with({ interface: w.iface.name });
    this.running.set(key, await (this.o.startV6 ?? startDhcpv6Server)({ config, link, log }));
    log.info('DHCPv6 server started', { link, address: config.address });
  }

  /** The bridge interface's lease from the pod interface as it was; undefined without an IPv4 address. */
  private bridgeConfig(w: PodNetworkInterface, common: CommonInput): DhcpConfig | undefined {
    const podInterface = this.o.podInterfaces?.get(w.podInterfaceName);
    if (podInterface === undefined) {
      throw new KvError(
        'KV_ERR_LAUNCHER',
        `interface ${w.iface.name}: the Pod had no interface ${w.podInterfaceName} when the launcher started`,
      );
    }
    const lease = bridgeDhcp({ podInterface, iface: w.iface });
    const { address } = lease;
    if (address === undefined) return undefined;
    return bridgeDhcpConfig({ ...common, lease: { ...lease, address }, interfaceIndex: w.interfaceIndex });
  }

  async close(): Promise<void> {
    const servers = [...this.running.values()];
    this.running.clear();
    await Promise.all(servers.map((s) => s.close()));
  }
}
