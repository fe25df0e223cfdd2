/**
 * The DHCP servers of the launcher (kubevirt pkg/network/setup's DHCP configurator, started by virt-launcher for
 * each masquerade interface): one per interface on the Pod network with the masquerade binding, answering the
 * MAC the domain has with the guest's fixed address, the Pod interface's MTU, the Pod's resolv.conf and the
 * VMI's hostname. The bridge binding's DHCP needs the Pod's addresses the handler took away; it is not served.
 * A server started for a MAC keeps running across syncs; close() stops them all.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { masqueradeDhcpConfig } from '../../network/dhcp/config.ts';
import { startDhcpServer, type DhcpServer, type DhcpServerOptions } from '../../network/dhcp/server.ts';
import { podNetworkInterfaces } from '../../network/pod-network-interfaces.ts';
import type { DomainSpec } from '../converter/index.ts';

export interface GuestDhcpOptions {
  /** The launcher's root ("/" in a Pod): its etc/resolv.conf and sys/class/net are read. */
  readonly root: string;
  readonly log: Logger;
  /** Default: lib/network/dhcp/server.ts startDhcpServer on 0.0.0.0:67. */
  readonly start?: (opts: DhcpServerOptions) => Promise<DhcpServer>;
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

const nonEmpty = (s: string | undefined): string | undefined => (s === '' ? undefined : s);

export class GuestDhcp {
  private readonly running = new Map<string, DhcpServer>();

  constructor(private readonly o: GuestDhcpOptions) {}

  /** Starts a server for each masquerade interface of the VMI not served yet; domain has the defined MACs. */
  async serve(vmi: VirtualMachineInstance, domain: DomainSpec): Promise<void> {
    const wanted = podNetworkInterfaces(vmi).filter((w) => w.iface.masquerade !== undefined);
    if (wanted.length === 0) return;
    const resolvConf = await readFile(join(this.o.root, 'etc/resolv.conf'), 'utf8').catch(() => '');
    for (const w of wanted) {
      const mac = domain.devices.interfaces.find((i) => i.alias.name === w.iface.name)?.mac;
      if (mac === undefined) {
        throw new KvError('KV_ERR_INTERNAL', `interface ${w.iface.name} has no MAC in the defined domain`);
      }
      if (this.running.has(mac)) continue;
      const config = masqueradeDhcpConfig({
        network: w.network,
        networkIndex: w.networkIndex,
        clientMac: mac,
        mtu: await podMtu(this.o.root, w.podInterfaceName),
        resolvConf,
        hostname: nonEmpty(vmi.spec.hostname) ?? vmi.metadata.name ?? '',
        ...(nonEmpty(vmi.spec.subdomain) !== undefined && { subdomain: vmi.spec.subdomain }),
        ...(w.iface.dhcpOptions !== undefined && { dhcpOptions: w.iface.dhcpOptions }),
      });
      const start = this.o.start ?? startDhcpServer;
      const log = this.o.log.with({ interface: w.iface.name });
      this.running.set(mac, await start({ config, address: '0.0.0.0', log }));
      log.info('DHCP server started', { mac, address: config.clientIp, mtu: config.mtu });
    }
  }

  async close(): Promise<void> {
    const servers = [...this.running.values()];
    this.running.clear();
    await Promise.all(servers.map((s) => s.close()));
  }
}
