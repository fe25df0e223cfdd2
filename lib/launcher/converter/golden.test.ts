/**
 * Golden files: testdata/<case>.in.json is a VMI as a user writes it; KubeVirt's defaults are applied (as the
 * API's mutating webhook does before a launcher ever sees it), then it is converted and compared, as an exact
 * string, with testdata/<case>.domain.xml. UPDATE_GOLDEN=1 rewrites the XML files.
 */
import { describe, expect, it } from '@jest/globals';
import { clusterDefaultsFrom, withVmiDefaults, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { goldens } from '../../kernel/testing/golden.ts';
import { isWellFormedXml } from '../xml-read.ts';
import { converterContext, toDomainXml, type ConverterContextOptions } from './index.ts';

const golden = goldens(import.meta.url);

type CaseOptions = Partial<ConverterContextOptions>;

const SMBIOS = {
  manufacturer: 'Flant',
  family: 'Deckhouse',
  product: 'DeckhouseVirtualizationPlatform',
  sku: '',
  version: '1.6.2',
};

const CASES: readonly [string, CaseOptions][] = [
  // Like the e2e test guests: TCG, kernel + initrd + console=ttyS0, no disks, paths under a private root.
  ['kernel-boot-tcg', { root: '/tmp/kv-launcher/marker', emulation: true }],
  [
    'containerdisk-cloudinit',
    { smbios: SMBIOS, containerDiskFormats: new Map([['containerdisk', 'qcow2']]) },
  ],
  [
    'persistent-volumes',
    {
      directIoByVolume: new Map([['scratch', false]]),
      preallocatedVolumes: new Set(['root']),
      serialConsoleLog: false,
    },
  ],
  ['efi-secureboot', { ovmfDir: '/usr/share/OVMF', memBalloonStatsPeriod: 0 }],
  ['custom-cpu', { hostCpuModels: ['qemu64', 'Cascadelake-Server-noTSX'] }],
  ['scsi-lun-reservation', {}],
  ['hyperv', { freePageReporting: false }],
  // Disks on IOThreads (auto: two per requested CPU), the Hyper-V features evmcs, ipi, tlbflush and the SynIC
  // timer need (switched on by the defaults), and the downward metrics channel on a node that serves it.
  ['iothreads-hyperv-metrics', { downwardMetricsServed: true }],
  // MTUs as the launcher reads them off the Pod links: masquerade, bridge on Multus, a plugin attached by tap.
  [
    'pod-network-mtu',
    {
      interfaceDomainAttachment: new Map([
        ['default', 'tap'],
        ['storage', 'tap'],
        ['fast', 'tap'],
      ]),
      podLinks: new Map([
        ['default', { mtu: 1450 }],
        ['storage', { mtu: 9000 }],
        ['fast', { mtu: 1400 }],
      ]),
    },
  ],
  // As Deckhouse's controller makes it: 20 cores as 2 sockets of 10 (cores and sockets swapped under the
  // dynamic-cores marker) that grow to 16 cores each, and 2Gi of memory that grows to 256Gi.
  ['deckhouse-hotplug', {}],
  // Filesystem claims in the formats the launcher found: qcow2 as Deckhouse's importer writes them (also under
  // an ephemeral overlay and hotplugged), raw as another client wrote one; a block claim is raw whatever is said.
  [
    'filesystem-qcow2',
    {
      claimDiskFormats: new Map([
        ['root', 'qcow2'],
        ['imported', 'raw'],
        ['raw-block', 'qcow2'],
        ['golden', 'qcow2'],
        ['added', 'qcow2'],
      ]),
    },
  ],
  // A Windows VM as Deckhouse makes it: q35, SMM, secure-boot EFI, Hyper-V enlightenments and `tpm: {}`.
  ['windows-tpm', { ovmfDir: '/usr/share/OVMF' }],
  // 1Gi hugepages on memfd (the default) with its NUMA cell; 2Mi hugepages with memfd turned off.
  ['hugepages-1gi', {}],
  ['hugepages-2mi-no-memfd', {}],
  // Two virtiofs shares (a PVC and a config map) in a Pod that serves their sockets: shared memfd memory.
  ['virtiofs', { virtiofsServed: true }],
  // The Deckhouse fork's hotplugged images: an ISO as a CD-ROM (Ready) and an image as a disk (MountedToPod),
  // each its own file read-only in the format the launcher found; one still AttachedToNode is not there yet.
  [
    'hotplug-image',
    {
      containerDiskFormats: new Map([['root', 'qcow2']]),
      claimDiskFormats: new Map([
        ['ubuntu-iso', 'raw'],
        ['tools', 'qcow2'],
      ]),
    },
  ],
  // DRA devices as Deckhouse's controller asks for them (gpu-<i> claims and requests) with the attributes the
  // VMI status got from their allocation: a GPU and an SR-IOV function by PCI address, two vGPUs (the first is the
  // display, with ramfb), and the fork's USB device by bus and device number (which needs the xhci controller).
  ['dra-pci-hostdevice', {}],
  ['dra-mdev-gpu', {}],
  ['dra-usb-hostdevice', {}],
];

function loadVmi(name: string): VirtualMachineInstance {
  return JSON.parse(golden.read(`${name}.in.json`)) as VirtualMachineInstance;
}

describe('domain XML goldens', () => {
  it.each(CASES)('%s', (name, opts) => {
    const ctx = converterContext({ root: '/', arch: 'amd64', emulation: false, ...opts });
    const vmi = withVmiDefaults(loadVmi(name), clusterDefaultsFrom(undefined, ctx.arch));
    const xml = toDomainXml(vmi, ctx);
    expect(isWellFormedXml(xml)).toBe(true);
    golden.expectText(`${name}.domain.xml`, xml);
  });

  it('gives the same bytes for the same VMI and context', () => {
    const ctx = converterContext({ root: '/', arch: 'amd64', emulation: true });
    const vmi = withVmiDefaults(loadVmi('containerdisk-cloudinit'), clusterDefaultsFrom(undefined, 'amd64'));
    const before = structuredClone(vmi);
    expect(toDomainXml(vmi, ctx)).toBe(toDomainXml(structuredClone(vmi), ctx));
    expect(vmi).toEqual(before);
  });
});
