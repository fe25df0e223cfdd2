/**
 * Host facts for node labels, from libvirt's capabilities and the domain capabilities of the accelerator the
 * launcher uses (kubevirt pkg/virt-handler/node-labeller cpu_plugin.go, model.go; node-labeller.sh). Pure:
 * - CPU models: the custom models libvirt reports usable (`usable='yes'`) for that virt type, minus
 *   KubeVirt's obsolete ones; under TCG these are the models QEMU emulates, never the host's;
 * - host model (KVM only: under TCG there is no host-model guest): name, vendor, required features;
 * - CPU features: the features the host-model definition requires;
 * - machine types of the guest architecture (deprecated ones left out), TSC frequency and scaling,
 *   Hyper-V enlightenments and SEV as libvirt reports them.
 */
import type { HostModel, NodeFacts } from '../../rpc/index.ts';
import { child, children, parseXml, type XmlNode } from '../xml-read.ts';

/** kubevirt DefaultObsoleteCPUModels. */
const OBSOLETE_CPU_MODELS: ReadonlySet<string> = new Set([
  '486',
  'pentium',
  'pentium2',
  'pentium3',
  'pentiumpro',
  'coreduo',
  'n270',
  'core2duo',
  'Conroe',
  'athlon',
  'phenom',
  'qemu64',
  'qemu32',
  'kvm64',
  'kvm32',
]);

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort((a, b) => a.localeCompare(b));

function cpuMode(domCaps: XmlNode, name: string): XmlNode | undefined {
  return children(child(domCaps, 'cpu'), 'mode').find((m) => m.attrs['name'] === name);
}

function usableModels(domCaps: XmlNode): string[] {
  const custom = cpuMode(domCaps, 'custom');
  return children(custom, 'model')
    .filter((m) => m.attrs['usable'] === 'yes')
    .map((m) => m.text);
}

function hostModelOf(domCaps: XmlNode): HostModel | undefined {
  const mode = cpuMode(domCaps, 'host-model');
  const model = child(mode, 'model');
  if (mode?.attrs['supported'] !== 'yes' || model === undefined) return undefined;
  return {
    name: model.text,
    vendor: child(mode, 'vendor')?.text ?? '',
    fallback: model.attrs['fallback'] ?? '',
    requiredFeatures: sorted(
      children(mode, 'feature')
        .filter((f) => f.attrs['policy'] === 'require')
        .map((f) => f.attrs['name'] ?? ''),
    ),
  };
}

function guestArch(caps: XmlNode, arch: string): XmlNode | undefined {
  for (const g of children(caps, 'guest')) {
    const a = child(g, 'arch');
    if (a?.attrs['name'] === arch) return a;
  }
  return undefined;
}

function machineTypes(caps: XmlNode, arch: string, virtType: string): string[] {
  const a = guestArch(caps, arch);
  const domain = children(a, 'domain').find((d) => d.attrs['type'] === virtType);
  const machines = [...children(a, 'machine'), ...children(domain, 'machine')];
  return sorted(machines.filter((m) => m.attrs['deprecated'] !== 'yes').map((m) => m.text));
}

function tscOf(caps: XmlNode): NodeFacts['tsc'] {
  const counter = children(child(caps, 'host/cpu'), 'counter').find((c) => c.attrs['name'] === 'tsc');
  const frequency = Number(counter?.attrs['frequency'] ?? NaN);
  if (counter === undefined || !Number.isFinite(frequency)) return undefined;
  return { frequency, scalable: counter.attrs['scaling'] === 'yes' };
}

function hypervFeatures(domCaps: XmlNode): string[] {
  const hv = child(domCaps, 'features/hyperv');
  if (hv?.attrs['supported'] !== 'yes') return [];
  const list = children(hv, 'enum').find((e) => e.attrs['name'] === 'features');
  return sorted(children(list, 'value').map((v) => v.text));
}

const textOf = (node: XmlNode, path: string): string => child(node, path)?.text ?? '';
const requiredFeatures = (dom: XmlNode): readonly string[] => hostModelOf(dom)?.requiredFeatures ?? [];

/** Facts from `virsh capabilities` and `virsh domcapabilities` XML (the latter for the accelerator in use). */
export function nodeFacts(o: {
  capabilitiesXml: string;
  domCapabilitiesXml: string;
  emulation: boolean;
}): NodeFacts {
  const caps = parseXml(o.capabilitiesXml);
  const dom = parseXml(o.domCapabilitiesXml);
  const arch = textOf(dom, 'arch');
  const virtType = textOf(dom, 'domain');
  const usable = usableModels(dom);
  const hostModel = o.emulation ? undefined : hostModelOf(dom);
  const tsc = tscOf(caps);
  return {
    arch,
    emulation: o.emulation,
    virtType,
    emulator: textOf(dom, 'path'),
    machine: textOf(dom, 'machine'),
    cpuModels: sorted(usable.filter((m) => !OBSOLETE_CPU_MODELS.has(m))),
    obsoleteCpuModels: sorted(usable.filter((m) => OBSOLETE_CPU_MODELS.has(m))),
    ...(hostModel !== undefined && { hostModel }),
    cpuFeatures: requiredFeatures(dom),
    machineTypes: machineTypes(caps, arch, virtType),
    ...(tsc !== undefined && { tsc }),
    hypervFeatures: hypervFeatures(dom),
    sev: child(dom, 'features/sev')?.attrs['supported'] === 'yes',
  };
}

/** `<vcpu max='N'/>`: the most vCPUs a domain of the queried machine type may have, when libvirt says. */
export function maxVcpusOf(domCapabilitiesXml: string): number | undefined {
  const max = Number(child(parseXml(domCapabilitiesXml), 'vcpu')?.attrs['max'] ?? NaN);
  return Number.isSafeInteger(max) && max > 0 ? max : undefined;
}

/** Every usable custom model (obsolete ones included): what the converter may be asked to run. */
export function usableCpuModels(domCapabilitiesXml: string): string[] {
  return usableModels(parseXml(domCapabilitiesXml));
}
