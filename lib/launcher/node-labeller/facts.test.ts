import { describe, expect, it } from '@jest/globals';
import { goldens } from '../../kernel/testing/golden.ts';
import type { NodeFacts } from '../../rpc/index.ts';
import { maxVcpusOf, nodeFacts, usableCpuModels } from './facts.ts';
import { nodeLabels } from './labels.ts';

// Captured from this project's private libvirt 9.0 / QEMU 7.2 on a host whose KVM is listed but unusable.
const golden = goldens(import.meta.url);
const testdata = (f: string): string => golden.read(f);
const capabilitiesXml = testdata('capabilities.xml');

describe('nodeFacts from the real capabilities of this host', () => {
  it.each([
    ['kvm', 'domcaps-kvm.xml', false],
    ['qemu', 'domcaps-qemu.xml', true],
  ] as const)('virt type %s matches its golden file', (virtType, file, emulation) => {
    const facts = nodeFacts({ capabilitiesXml, domCapabilitiesXml: testdata(file), emulation });
    expect(facts.virtType).toBe(virtType);
    golden.expectJson(`facts-${virtType}.json`, facts);
    golden.expectJson(`labels-${virtType}.json`, nodeLabels(facts));
  });

  it('under TCG offers only the models QEMU emulates, and no host model', () => {
    const tcg = nodeFacts({
      capabilitiesXml,
      domCapabilitiesXml: testdata('domcaps-qemu.xml'),
      emulation: true,
    });
    const kvm = nodeFacts({
      capabilitiesXml,
      domCapabilitiesXml: testdata('domcaps-kvm.xml'),
      emulation: false,
    });
    expect(tcg.hostModel).toBeUndefined();
    expect(kvm.hostModel).toMatchObject({ name: 'kvm64', vendor: 'AMD', fallback: 'forbid' });
    // The paravirtual KVM here leaves only obsolete models usable; TCG emulates a few named ones.
    expect(kvm.cpuModels).toEqual([]);
    expect(kvm.obsoleteCpuModels).toEqual(['486', 'pentium', 'pentium2', 'pentium3']);
    expect(tcg.cpuModels).toEqual(['Nehalem', 'Opteron_G1', 'Opteron_G2', 'Penryn', 'Westmere']);
    expect(tcg.obsoleteCpuModels).toEqual(expect.arrayContaining(['qemu64', 'qemu32']));
    expect(usableCpuModels(testdata('domcaps-qemu.xml'))).toContain('qemu64');
  });

  it('reads a model whose attribute value holds a ">" (legal XML) like any other', () => {
    const domCapabilitiesXml = testdata('domcaps-qemu.xml');
    const withGt = domCapabilitiesXml.replace(
      "<model usable='yes' vendor='Intel'>Nehalem</model>",
      "<model note='a > b' usable='yes' vendor='Intel'>Nehalem</model>",
    );
    expect(withGt).not.toBe(domCapabilitiesXml);
    const facts = nodeFacts({ capabilitiesXml, domCapabilitiesXml: withGt, emulation: true });
    expect(facts.cpuModels).toContain('Nehalem');
    expect(facts).toEqual(nodeFacts({ capabilitiesXml, domCapabilitiesXml, emulation: true }));
  });

  it('refuses capabilities that are not well-formed XML, naming the fault', () => {
    expect(() =>
      nodeFacts({ capabilitiesXml: '<capabilities><host>', domCapabilitiesXml: '', emulation: true }),
    ).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
  });

  it('reads the most vCPUs a domain of the machine type may have', () => {
    expect(maxVcpusOf(testdata('domcaps-qemu.xml'))).toBe(288);
    expect(maxVcpusOf(testdata('domcaps-kvm.xml'))).toBe(288);
  });

  it.each([
    ['no <vcpu>', '<domainCapabilities><arch>x86_64</arch></domainCapabilities>'],
    ['no max', '<domainCapabilities><vcpu/></domainCapabilities>'],
    ['a max that is not a count', "<domainCapabilities><vcpu max='many'/></domainCapabilities>"],
    ['a zero max', "<domainCapabilities><vcpu max='0'/></domainCapabilities>"],
  ])('has no vCPU maximum with %s', (_, xml) => {
    expect(maxVcpusOf(xml)).toBeUndefined();
  });

  it('reads machine types (deprecated ones left out), TSC and Hyper-V', () => {
    const f = nodeFacts({
      capabilitiesXml,
      domCapabilitiesXml: testdata('domcaps-qemu.xml'),
      emulation: true,
    });
    expect(f.machineTypes).toEqual(expect.arrayContaining(['q35', 'pc-q35-7.2', 'pc', 'pc-i440fx-7.2']));
    expect(f.machineTypes).not.toContain('pc-i440fx-1.5');
    expect(f.tsc).toEqual({ frequency: 2596148000, scalable: false });
    expect(f.hypervFeatures).toEqual(['spinlocks', 'vendor_id']);
    expect(f.sev).toBe(false);
    expect(f.arch).toBe('x86_64');
    expect(f.machine).toBe('pc-q35-7.2');
  });
});

const base: NodeFacts = {
  arch: 'x86_64',
  emulation: false,
  virtType: 'kvm',
  emulator: '/usr/bin/qemu-system-x86_64',
  machine: 'pc-q35-7.2',
  cpuModels: [],
  obsoleteCpuModels: [],
  cpuFeatures: [],
  machineTypes: [],
  hypervFeatures: [],
  sev: false,
};

describe('nodeLabels', () => {
  it.each([
    ['a CPU model', { cpuModels: ['Haswell'] }, { 'cpu-model.node.kubevirt.io/Haswell': 'true' }],
    ['a CPU feature', { cpuFeatures: ['avx2'] }, { 'cpu-feature.node.kubevirt.io/avx2': 'true' }],
    [
      'a machine type',
      { machineTypes: ['pc-q35-7.2'] },
      { 'machine-type.node.kubevirt.io/pc-q35-7.2': 'true' },
    ],
    [
      'TSC facts',
      { tsc: { frequency: 2596148000, scalable: true } },
      {
        'cpu-timer.node.kubevirt.io/tsc-frequency': '2596148000',
        'cpu-timer.node.kubevirt.io/tsc-scalable': 'true',
      },
    ],
    [
      'the host model',
      { hostModel: { name: 'EPYC', vendor: 'AMD', fallback: 'forbid', requiredFeatures: ['x2apic'] } },
      {
        'host-model-cpu.node.kubevirt.io/EPYC': 'true',
        'host-model-required-features.node.kubevirt.io/x2apic': 'true',
        'cpu-vendor.node.kubevirt.io/AMD': 'true',
      },
    ],
    ['SEV', { sev: true }, { 'kubevirt.io/sev': 'true' }],
    ['a name a label cannot carry', { cpuModels: ['bad/name'] }, {}],
  ] as const)('labels %s', (_what, change, want) => {
    expect(nodeLabels({ ...base, ...change })).toEqual(want);
  });
});
