/** Guest network interfaces (domain.devices.interfaces) and the networks they attach to (spec.networks). */
import { s, type Infer } from '../schema/dsl.ts';

const interfaceState = s.enum(['absent', 'up', 'down']);

const port = s.object({
  name: s.string(),
  /** TCP or UDP; TCP when absent. */
  protocol: s.string(),
  port: s.int('int32').required(),
});

const dhcpOptions = s.object({
  bootFileName: s.string(),
  tftpServerName: s.string(),
  ntpServers: s.array(s.string()),
  privateOptions: s.array(s.object({ option: s.int().required(), value: s.string().required() })),
});

export const networkInterface = s.object({
  name: s.string().required(),
  /** e1000, e1000e, igb, ne2k_pci, pcnet, rtl8139, virtio. */
  model: s.string(),
  /** A network binding plugin registered in the KubeVirt configuration. */
  binding: s.object({ name: s.string().required() }),
  bridge: s.empty(),
  masquerade: s.empty(),
  sriov: s.empty(),
  slirp: s.empty(),
  macvtap: s.empty(),
  passt: s.empty(),
  ports: s.array(port),
  macAddress: s.string(),
  bootOrder: s.uint(),
  pciAddress: s.string(),
  dhcpOptions,
  tag: s.string(),
  acpiIndex: s.int(),
  state: interfaceState,
});
export type Interface = Infer<typeof networkInterface>;

export const network = s.object({
  name: s.string().required(),
  pod: s.object({ vmNetworkCIDR: s.string(), vmIPv6NetworkCIDR: s.string() }),
  multus: s.object({ networkName: s.string().required(), default: s.bool() }),
});
export type Network = Infer<typeof network>;
