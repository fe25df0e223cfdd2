/**
 * The handler's part of the Pod network (kubevirt virt-handler's setupNetwork before SyncVMI, pkg/network/setup
 * netpod.go). Before a VMI's first sync, the launcher Pod's namespace is found by the Pod uid the launcher-Pod
 * check vouched for (lib/handler/launchers/pods.ts) and opened once (lib/network/setup/pod-netns.ts). Each
 * masquerade or bridge interface gets its bridge, tap and NAT; each interface of a binding plugin attached by
 * `tap` gets its tap alone (KubeVirt's name, up; the plugin's CNI does the rest). A masquerade bridge of a Pod
 * with IPv6 gets router advertisements (router-adverts.ts), which KubeVirt does not send. What is already there (a
 * handler that restarted) is left alone; the Pod interfaces' addresses are kept for status.interfaces.
 * The launcher serves DHCP on port 67 as uid 107 without capabilities: the namespace's
 * `ip_unprivileged_port_start` is set to 0 there (KubeVirt gives its launcher binary CAP_NET_BIND_SERVICE
 * instead; the sysctl is the tenant's own namespace's, as KubeVirt sets it for passt). Nothing is torn down:
 * the namespace goes with the Pod.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { bridgeName, tapDeviceName } from '../../network/link-names.ts';
import type { CommandRunner } from '../../network/setup/command.ts';
import { anyGlobalUnicast, isGlobalUnicast } from '../../network/setup/addresses.ts';
import { radvdConfig, type AdvertisedBridge } from '../../network/setup/router-adverts.ts';
import {
  applyPlan,
  listLinks,
  randomBridgeMac,
  readPodInterface,
  supportsLinkType,
} from '../../network/setup/netns-exec.ts';
import { planPodNetwork } from '../../network/setup/plan.ts';
import { openPodNetns, type OpenNetns } from '../../network/setup/pod-netns.ts';
import type { PlaceholderLinkType, Step } from '../../network/setup/steps.ts';
import {
  podNetworkInterfaces,
  type BindingPlugin,
  type PodNetworkInterface,
} from '../../network/pod-network-interfaces.ts';
import type { PodInterface } from '../../network/setup/pod-interface.ts';
import type { RouterAdvertisers } from './router-adverts.ts';

const DEFAULT_MTU = 1500;
const UNPRIVILEGED_PORTS: Step = { kind: 'sysctl', key: 'ipv4/ip_unprivileged_port_start', value: '0' };

export interface PodNetworkSetupOptions {
  readonly log: Logger;
  /** The binding plugins of the KubeVirt resource now (default: none). */
  readonly plugins?: () => Readonly<Record<string, BindingPlugin>>;
  /** The node's /proc (default /proc: the handler shares the node's PID namespace). */
  readonly procRoot?: string;
  /** How commands run (default: lib/network/setup/command.ts runCommand). */
  readonly run?: CommandRunner;
  /** Who sends IPv6 router advertisements on masquerade bridges (none: no advertisements). */
  readonly adverts?: RouterAdvertisers;
}

/** The addresses of each VMI interface's Pod interface, by interface name (status.interfaces ipAddresses). */
export type PodIps = ReadonlyMap<string, readonly string[]>;
const NONE: PodIps = new Map();

export class PodNetworkSetup {
  /** Launcher Pods whose namespace is set up, with the addresses of their Pod interfaces. */
  private readonly done = new Map<string, PodIps>();
  /** The link type that keeps a bridged Pod interface's addresses, found out on the first bridge binding. */
  private placeholder: PlaceholderLinkType | undefined;

  constructor(private readonly o: PodNetworkSetupOptions) {}

  /** Connects the VMI's Pod network interfaces in launcher Pod podUid; a Pod already done is left alone. */
  async prepare(vmi: VirtualMachineInstance, podUid: string): Promise<void> {
    const wanted = podNetworkInterfaces(vmi, this.o.plugins?.() ?? {});
    if (wanted.length === 0 || this.done.has(podUid)) return;
    const ns = openPodNetns(podUid, this.o.procRoot);
    const opts = { log: this.o.log, ...(this.o.run !== undefined && { run: this.o.run }) };
    try {
      const present = new Set((await listLinks(ns, opts)).map((l) => l.name));
      const ips = new Map<string, string[]>();
      const advertised: AdvertisedBridge[] = [];
      for (const w of wanted) {
        const podInterface = await this.podInterface(ns, w, opts);
        const global = [...podInterface.ipv4, ...podInterface.ipv6].filter((a) => isGlobalUnicast(a.address));
        ips.set(
          w.iface.name,
          global.map((a) => a.address),
        );
        if (w.iface.masquerade !== undefined && anyGlobalUnicast(podInterface.ipv6)) {
          const { network, networkIndex } = w;
          const bridge = bridgeName(w.podInterfaceName);
          advertised.push({ bridge, network, networkIndex, mtu: podInterface.mtu });
        }
        await this.connect(ns, { ...w, podInterface }, present, opts);
      }
      if (advertised.length > 0) await this.o.adverts?.start(podUid, ns, radvdConfig(advertised));
      this.done.set(podUid, ips);
    } finally {
      ns.close();
    }
  }

  /** Applies w's plan, unless what it makes is there already (a handler that restarted). */
  private async connect(
    ns: OpenNetns,
    w: PodNetworkInterface & { readonly podInterface: PodInterface },
    present: ReadonlySet<string>,
    opts: Parameters<typeof applyPlan>[2],
  ): Promise<void> {
    const made =
      w.iface.binding === undefined
        ? bridgeName(w.podInterfaceName)
        : tapDeviceName(w.podInterfaceName, w.network);
    if (present.has(made)) return;
    const plan = planPodNetwork({
      podInterface: w.podInterface,
      iface: w.iface,
      interfaceIndex: w.interfaceIndex,
      network: w.network,
      queues: w.queues,
      ...(w.iface.bridge !== undefined && {
        bridgeMac: randomBridgeMac(),
        placeholderLinkType: await this.placeholderLinkType(ns, opts),
      }),
    });
    const dhcp = w.iface.binding === undefined ? [UNPRIVILEGED_PORTS] : [];
    await applyPlan(ns, [...plan.steps, ...dhcp], opts);
  }

  /**
   * The Pod interface of w; a binding plugin's may not be there (its CNI may make it later): its tap then gets
   * the default MTU.
   */
  private async podInterface(
    ns: OpenNetns,
    w: PodNetworkInterface,
    opts: Parameters<typeof readPodInterface>[2],
  ): Promise<PodInterface> {
    try {
      return await readPodInterface(ns, w.podInterfaceName, opts);
    } catch (err) {
      if (w.iface.binding === undefined) throw err;
      return { name: w.podInterfaceName, mtu: DEFAULT_MTU, mac: '', ipv4: [], ipv6: [], routes: [] };
    }
  }

  /** `dummy`, as KubeVirt; `ifb` on a kernel without dummy links (the bridge binding's deviation, README). */
  private async placeholderLinkType(
    ns: OpenNetns,
    opts: Parameters<typeof supportsLinkType>[2],
  ): Promise<PlaceholderLinkType> {
    this.placeholder ??= (await supportsLinkType(ns, 'dummy', opts)) ? 'dummy' : 'ifb';
    return this.placeholder;
  }

  /** What prepare found of the Pod's interfaces (nothing before it ran). */
  podIps(podUid: string): PodIps {
    return this.done.get(podUid) ?? NONE;
  }

  /** The launcher Pod is gone. */
  forget(podUid: string): void {
    this.done.delete(podUid);
    void this.o.adverts?.stop(podUid);
  }

  /** The handler is going. */
  async close(): Promise<void> {
    await this.o.adverts?.stopAll();
  }
}
