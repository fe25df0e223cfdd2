import { describe, expect, it } from '@jest/globals';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { DEFAULT_CLUSTER_CONFIG, handlerClusterConfig, syncOptions } from './options.ts';

const kubevirt = (configuration: Record<string, unknown>): KubeVirt => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'KubeVirt',
  metadata: { name: 'config', namespace: 'd8-virtualization' },
  spec: { configuration },
});

describe('handlerClusterConfig', () => {
  it.each<[string, KubeVirt | undefined, Partial<ReturnType<typeof handlerClusterConfig>>]>([
    ['no KubeVirt resource: KubeVirt’s defaults', undefined, DEFAULT_CLUSTER_CONFIG],
    ['nothing configured: the defaults', kubevirt({}), DEFAULT_CLUSTER_CONFIG],
    [
      'Deckhouse’s SMBIOS replaces the default one whole',
      kubevirt({
        smbios: {
          manufacturer: 'Flant',
          family: 'Deckhouse',
          product: 'DeckhouseVirtualizationPlatform',
          sku: '1',
        },
      }),
      {
        smbios: {
          manufacturer: 'Flant',
          family: 'Deckhouse',
          product: 'DeckhouseVirtualizationPlatform',
          sku: '1',
          version: '',
        },
      },
    ],
    [
      'Deckhouse’s disableSerialConsoleLog, and free page reporting off',
      kubevirt({ virtualMachineOptions: { disableSerialConsoleLog: {}, disableFreePageReporting: {} } }),
      { serialConsoleLogDisabled: true, freePageReportingDisabled: true },
    ],
    ['a balloon statistics period', kubevirt({ memBalloonStatsPeriod: 0 }), { memBalloonStatsPeriod: 0 }],
    [
      'a period that is no whole number: the default',
      kubevirt({ memBalloonStatsPeriod: -1 }),
      { memBalloonStatsPeriod: 10 },
    ],
    [
      'the Bochs display gate',
      kubevirt({ developerConfiguration: { featureGates: ['BochsDisplayForEFIGuests'] } }),
      { bochsDisplayForEfiGuests: true },
    ],
    [
      'the network binding plugins, each with its domain attachment',
      kubevirt({
        network: {
          binding: {
            deckhouse: { domainAttachmentType: 'tap', sidecarImage: '' },
            other: { sidecarImage: 'x' },
          },
        },
      }),
      { networkBindings: { deckhouse: { domainAttachmentType: 'tap' }, other: {} } },
    ],
    [
      'a binding plugin with a migration section migrates (any method); a null one does not',
      kubevirt({
        network: {
          binding: {
            passt: { sidecarImage: 'x', migration: {} },
            tapper: { domainAttachmentType: 'tap', migration: { method: 'link-refresh' } },
            none: { migration: null },
          },
        },
      }),
      {
        networkBindings: {
          passt: { migration: true },
          tapper: { domainAttachmentType: 'tap', migration: true },
          none: {},
        },
      },
    ],
  ])('%s', (_name, kv, want) => {
    expect(handlerClusterConfig(kv)).toEqual({ ...DEFAULT_CLUSTER_CONFIG, ...want });
  });

  it('tells the launcher how each interface is attached', () => {
    const cfg = handlerClusterConfig(
      kubevirt({ network: { binding: { deckhouse: { domainAttachmentType: 'tap' } } } }),
    );
    const vmi = {
      metadata: { name: 'vm' },
      spec: {
        domain: {
          devices: {
            interfaces: [
              { name: 'default', binding: { name: 'deckhouse' } },
              { name: 'm', masquerade: {} },
              { name: 'x', binding: { name: 'none' } },
            ],
          },
        },
      },
    } as Parameters<typeof syncOptions>[0];
    expect(syncOptions(vmi, cfg).interfaceDomainAttachment).toEqual({ default: 'tap', m: 'tap' });
  });

  it('reaches the launcher in SyncVirtualMachine’s options', () => {
    const cfg = handlerClusterConfig(kubevirt({ smbios: { manufacturer: 'Flant' } }));
    const vmi = { metadata: { name: 'vm' }, spec: { domain: { devices: {} } } } as Parameters<
      typeof syncOptions
    >[0];
    expect(syncOptions(vmi, cfg).VirtualMachineSMBios).toEqual({
      manufacturer: 'Flant',
      family: '',
      product: '',
      sku: '',
      version: '',
    });
  });
});
