/**
 * Network interfaces as KubeVirt renders them for the pod network (kubevirt converter/network.go,
 * domainspec/generators.go): bridge and masquerade bindings attach through the tap the handler made in the
 * launcher Pod's namespace (lib/network/setup), so libvirt gets `type="ethernet"` with `<target dev managed="no">`
 * under KubeVirt's tap name (lib/network/link-names.ts) and the MTU (and, for the bridge binding when the VMI names
 * none, the MAC) the launcher read off the Pod interface (ConverterContext.podLinks), as do binding plugins the handler says are attached by tap
 * (ConverterContext.interfaceDomainAttachment). SR-IOV and other binding plugins are not libvirt
 * interfaces. Absent interfaces are left out.
 */
import type { Interface as VmiInterface, Network, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { tapDeviceName } from '../../network/link-names.ts';
import { podInterfaceName } from '../../network/namescheme.ts';
import { configurator, virtioModel, type Configurator } from './configurator.ts';
import type { ConverterContext } from './context.ts';
import { cpuTopology, vcpuCount } from './cpu-topology.ts';
import { parsePciAddress } from './disk-device.ts';
import { userAlias, type Interface } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

const MAX_QUEUES = 256;
const TAP_BINDINGS = ['bridge', 'masquerade', 'macvtap'] as const;

type Attachment = 'tap' | 'none';

function attachment(iface: VmiInterface, field: string, ctx: ConverterContext): Attachment {
  if (TAP_BINDINGS.some((b) => iface[b] !== undefined)) return 'tap';
  if (iface.binding !== undefined)
    return ctx.interfaceDomainAttachment?.get(iface.name) === 'tap' ? 'tap' : 'none';
  if (iface.sriov !== undefined) return 'none';
  if (iface.slirp !== undefined) {
    throw new ConversionError(`${field}.slirp`, 'slirp interface is deprecated as of v1.3', 'unsupported');
  }
  if (iface.passt !== undefined) {
    throw new ConversionError(`${field}.passt`, 'the core passt binding is not supported', 'unsupported');
  }
  throw new ConversionError(field, 'interface has no binding method (bridge, masquerade, sriov or binding)');
}

function queues(vmi: VirtualMachineInstance, model: string): number | undefined {
  if (vmi.spec.domain.devices.networkInterfaceMultiqueue !== true || model !== 'virtio') return undefined;
  return Math.min(vcpuCount(cpuTopology(vmi)), MAX_QUEUES);
}

/** MAC, PCI address, ACPI index, boot order (or no option ROM), link state. */
function setOptionalParts(out: Interface, iface: VmiInterface, field: string, ctx: ConverterContext): void {
  if (iface.macAddress !== undefined && iface.macAddress !== '') out.mac = iface.macAddress;
  if (iface.pciAddress !== undefined && iface.pciAddress !== '') {
    out.address = parsePciAddress(iface.pciAddress, `${field}.pciAddress`);
  }
  if (iface.acpiIndex !== undefined && iface.acpiIndex > 0) out.acpiIndex = iface.acpiIndex;
  if (iface.bootOrder !== undefined) out.bootOrder = iface.bootOrder;
  // Without a boot order the iPXE option ROM only slows the boot down (s390x has none to turn off).
  else if (ctx.arch !== 's390x') out.romEnabled = 'no';
  if (iface.state === 'down') out.linkState = 'down';
}

function domainInterface(
  at: { iface: VmiInterface; network: Network; field: string },
  vmi: VirtualMachineInstance,
  ctx: ConverterContext,
): Interface {
  const { iface, network, field } = at;
  const model = iface.model === undefined || iface.model === '' ? 'virtio' : iface.model;
  const podInterface = podInterfaceName(network, vmi.status?.interfaces ?? []);
  const out: Interface = {
    type: 'ethernet',
    model: model === 'virtio' ? virtioModel(vmi, ctx) : model,
    alias: userAlias(iface.name),
    target: { dev: tapDeviceName(podInterface, network), managed: 'no' },
  };
  const link = ctx.podLinks?.get(iface.name);
  if (link !== undefined) out.mtu = link.mtu;
  // KubeVirt gives every tap interface its Pod link's MAC; here only a bridge guest, which stands in for the Pod
  // on the wire, takes it. A masquerade guest with the Pod interface's MAC has the Pod interface's IPv6
  // link-local address too, and the Pod's kernel drops what the guest sends from it (DHCPv6 solicits included).
  if (link?.mac !== undefined && iface.bridge !== undefined) out.mac = link.mac;
  const q = queues(vmi, model);
  if (q !== undefined) out.driver = { name: 'vhost', queues: q };
  setOptionalParts(out, iface, field, ctx);
  return out;
}

export const interfacesConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const networks = new Map((vmi.spec.networks ?? []).map((n) => [n.name, n]));
  (vmi.spec.domain.devices.interfaces ?? []).forEach((iface, i) => {
    const field = `spec.domain.devices.interfaces[${i}]`;
    if (iface.state === 'absent') return;
    const network = networks.get(iface.name);
    if (network === undefined) {
      throw new ConversionError(`${field}.name`, `failed to find network ${iface.name}`);
    }
    if (attachment(iface, field, ctx) === 'none') return;
    domain.devices.interfaces.push(domainInterface({ iface, network, field }, vmi, ctx));
  });
});
