/**
 * What `virt launcher node-labeller` leaves for the handler (kubevirt node-labeller.sh in the handler Pod's init
 * container, pkg/virt-handler/node-labeller): the files it writes into its output directory, the host facts in
 * host-facts.json, and the label prefixes of node-labels.json (the handler replaces every label under them).
 */

/** File names in the node-labeller's output directory. */
export const NODE_LABELLER_FILES = {
  capabilities: 'capabilities.xml',
  domCapabilities: 'domcapabilities.xml',
  facts: 'host-facts.json',
  labels: 'node-labels.json',
} as const;

/** KubeVirt's node label prefixes and names (api/v1 types.go). */
export const NODE_LABEL_PREFIXES = {
  cpuModel: 'cpu-model.node.kubevirt.io/',
  cpuFeature: 'cpu-feature.node.kubevirt.io/',
  hostModelCpu: 'host-model-cpu.node.kubevirt.io/',
  hostModelRequiredFeature: 'host-model-required-features.node.kubevirt.io/',
  cpuVendor: 'cpu-vendor.node.kubevirt.io/',
  machineType: 'machine-type.node.kubevirt.io/',
  hyperv: 'hyperv.node.kubevirt.io/',
  tscFrequency: 'cpu-timer.node.kubevirt.io/tsc-frequency',
  tscScalable: 'cpu-timer.node.kubevirt.io/tsc-scalable',
  sev: 'kubevirt.io/sev',
} as const;

export interface HostModel {
  readonly name: string;
  readonly vendor: string;
  readonly fallback: string;
  readonly requiredFeatures: readonly string[];
}

export interface NodeFacts {
  /** Guest architecture (libvirt's name: x86_64, aarch64, s390x). */
  readonly arch: string;
  readonly emulation: boolean;
  /** 'kvm' or 'qemu' (TCG), from the domain capabilities. */
  readonly virtType: string;
  readonly emulator: string;
  /** The machine the domain capabilities describe (canonical name). */
  readonly machine: string;
  readonly cpuModels: readonly string[];
  /** Usable, but obsolete for KubeVirt (never labelled). */
  readonly obsoleteCpuModels: readonly string[];
  readonly hostModel?: HostModel;
  readonly cpuFeatures: readonly string[];
  readonly machineTypes: readonly string[];
  readonly tsc?: { readonly frequency: number; readonly scalable: boolean };
  readonly hypervFeatures: readonly string[];
  readonly sev: boolean;
}
