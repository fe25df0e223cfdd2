/** Plan inputs for the plan tests: a pod interface as read from a Pod, the VMI interfaces, the rendering. */
import type { Interface, Network } from '../../../kubevirt/index.ts';
import { planPodNetwork, type PlanInput } from '../plan.ts';
import type { PodInterface } from '../pod-interface.ts';
import { renderSteps } from '../steps.ts';

export const V4 = { address: '10.244.0.5', prefixLength: 24 };
export const V6 = { address: 'fd00:10:244::5', prefixLength: 64 };
export const LINK_LOCAL = { address: 'fe80::a8bb:ccff:fedd:eeff', prefixLength: 64 };
export const ROUTES = [
  { destination: '0.0.0.0/0', gateway: '10.244.0.1' },
  { destination: '10.96.0.10/32', gateway: '10.244.0.1' },
  { destination: '10.244.0.0/24' },
];
export const pod = (o: Partial<PodInterface> = {}): PodInterface => ({
  name: 'eth0',
  mtu: 1450,
  mac: 'aa:bb:cc:dd:ee:ff',
  ipv4: [V4],
  ipv6: [],
  routes: ROUTES,
  ...o,
});
const POD_NETWORK: Network = { name: 'default', pod: {} };
export const masquerade = (o: Partial<Interface> = {}): Interface => ({
  name: 'default',
  masquerade: {},
  ...o,
});
export const bridge = (o: Partial<Interface> = {}): Interface => ({ name: 'default', bridge: {}, ...o });
export const input = (o: Partial<PlanInput>): PlanInput => ({
  podInterface: pod(),
  iface: masquerade(),
  interfaceIndex: 0,
  network: POD_NETWORK,
  queues: 1,
  ...o,
});
export const BRIDGE_MAC = '02:11:22:33:44:55';

/** The ip lines and sysctls of a plan, and the families its NAT covers. */
export function rendered(i: PlanInput): { ip: readonly string[]; sysctl: string[]; nat: string[] } {
  const plan = planPodNetwork(i);
  const r = renderSteps(plan.steps);
  return {
    ip: r.ipBatch,
    sysctl: r.sysctls.map((s) => `${s.path}=${s.value}`),
    nat: plan.steps.flatMap((s) => (s.kind === 'nat' ? [s.family] : [])),
  };
}
