import { describe, expect, it } from '@jest/globals';
import type { Interface as VmiInterface } from '../../kubevirt/index.ts';
import { withInterface, withSpec } from '../../kubevirt/testing/builders.ts';
import type { ConverterContextOptions } from './context.ts';
import type { Interface } from './domain-spec.ts';
import { interfacesConfigurator } from './interfaces.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

const pod = { name: 'default', pod: {} };

function convert(iface: VmiInterface, ctx: Partial<ConverterContextOptions> = {}): Interface[] {
  const vmi = testVmi(withInterface(iface, { ...pod, name: iface.name }));
  return runConfigurator(interfacesConfigurator, vmi, testCtx(ctx)).devices.interfaces;
}

describe('interfacesConfigurator', () => {
  it.each<[string, VmiInterface, Partial<ConverterContextOptions>, Interface[]]>([
    [
      'bridge on the pod network is an ethernet (tap) interface without option ROM',
      { name: 'default', bridge: {} },
      {},
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      'masquerade with a MAC, boot order and another model',
      { name: 'default', masquerade: {}, macAddress: '02:00:00:00:00:01', bootOrder: 1, model: 'e1000e' },
      {},
      [
        {
          type: 'ethernet',
          model: 'e1000e',
          mac: '02:00:00:00:00:01',
          bootOrder: 1,
          alias: { name: 'default', userDefined: true },
          target: { dev: 'tap0', managed: 'no' },
        },
      ],
    ],
    [
      'transitional virtio, link down, ACPI index, PCI address',
      { name: 'default', bridge: {}, state: 'down', acpiIndex: 3, pciAddress: '0000:02:01.0' },
      { virtioTransitional: true },
      [
        {
          type: 'ethernet',
          model: 'virtio-transitional',
          alias: { name: 'default', userDefined: true },
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
          linkState: 'down',
          acpiIndex: 3,
          address: { type: 'pci', domain: '0x0000', bus: '0x02', slot: '0x01', function: '0x0' },
        },
      ],
    ],
    ['SR-IOV is not a libvirt interface here', { name: 'default', sriov: {} }, {}, []],
    [
      'nor is a binding plugin the handler did not say is attached by tap',
      { name: 'default', binding: { name: 'passt' } },
      {},
      [],
    ],
    [
      'a binding plugin attached by tap opens its tap',
      { name: 'default', binding: { name: 'deckhouse' } },
      { interfaceDomainAttachment: new Map([['default', 'tap']]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    ['an absent interface is left out', { name: 'default', bridge: {}, state: 'absent' }, {}, []],
    [
      'masquerade gets the MTU the launcher read off its Pod link',
      { name: 'default', masquerade: {} },
      { podLinks: new Map([['default', { mtu: 1450 }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mtu: 1450,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      'so does bridge',
      { name: 'default', bridge: {} },
      { podLinks: new Map([['default', { mtu: 9000 }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mtu: 9000,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      'and a binding plugin attached by tap',
      { name: 'default', binding: { name: 'deckhouse' } },
      {
        interfaceDomainAttachment: new Map([['default', 'tap']]),
        podLinks: new Map([['default', { mtu: 1400 }]]),
      },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mtu: 1400,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      "bridge takes its Pod link's MAC (the Pod's own, kept on the dummy)",
      { name: 'default', bridge: {} },
      { podLinks: new Map([['default', { mtu: 1450, mac: 'aa:bb:cc:dd:ee:ff' }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mac: 'aa:bb:cc:dd:ee:ff',
          mtu: 1450,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      "masquerade keeps libvirt's MAC: the Pod link's would give the guest the Pod's IPv6 link-local address",
      { name: 'default', masquerade: {} },
      { podLinks: new Map([['default', { mtu: 1450, mac: 'aa:bb:cc:dd:ee:ff' }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mtu: 1450,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      "the VMI's macAddress wins over the Pod link's",
      { name: 'default', bridge: {}, macAddress: '02:00:00:00:00:07' },
      { podLinks: new Map([['default', { mtu: 1450, mac: 'aa:bb:cc:dd:ee:ff' }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          mac: '02:00:00:00:00:07',
          mtu: 1450,
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      "an MTU of another interface is not this one's",
      { name: 'default', masquerade: {} },
      { podLinks: new Map([['other', { mtu: 1400 }]]) },
      [
        {
          type: 'ethernet',
          model: 'virtio-non-transitional',
          alias: { name: 'default', userDefined: true },
          target: { dev: 'tap0', managed: 'no' },
          romEnabled: 'no',
        },
      ],
    ],
    [
      'an MTU does not make an interface of a plugin not attached by tap',
      { name: 'default', binding: { name: 'passt' } },
      { podLinks: new Map([['default', { mtu: 65520 }]]) },
      [],
    ],
  ])('%s', (_, iface, ctx, expected) => {
    expect(convert(iface, ctx)).toEqual(expected);
  });

  it('multi-queue gives virtio interfaces one queue per vCPU', () => {
    const vmi = testVmi(
      withInterface({ name: 'default', bridge: {} }, pod),
      withSpec((s) => {
        s.domain.devices.networkInterfaceMultiqueue = true;
        s.domain.cpu = { sockets: 1, cores: 3, threads: 1 };
      }),
    );
    expect(runConfigurator(interfacesConfigurator, vmi).devices.interfaces[0]?.driver).toEqual({
      name: 'vhost',
      queues: 3,
    });
  });

  it.each<[string, VmiInterface, string, string]>([
    ['slirp', { name: 'default', slirp: {} }, 'spec.domain.devices.interfaces[0].slirp', 'unsupported'],
    ['core passt', { name: 'default', passt: {} }, 'spec.domain.devices.interfaces[0].passt', 'unsupported'],
    ['no binding', { name: 'default' }, 'spec.domain.devices.interfaces[0]', 'invalid'],
    [
      'a bad PCI address',
      { name: 'default', bridge: {}, pciAddress: '0:1:2' },
      'spec.domain.devices.interfaces[0].pciAddress',
      'invalid',
    ],
  ])('%s → %s error at %s', (_, iface, field, reason) => {
    expect(() => convert(iface)).toThrow(expect.objectContaining({ field, reason }));
  });

  it('refuses an interface without a network', () => {
    const vmi = testVmi(withInterface({ name: 'extra', bridge: {} }, pod));
    expect(() => runConfigurator(interfacesConfigurator, vmi)).toThrow(
      expect.objectContaining({
        field: 'spec.domain.devices.interfaces[0].name',
        message: expect.stringContaining('failed to find network extra'),
      }),
    );
  });
});

describe('the tap a domain interface opens', () => {
  it('is tap<name less its first three characters> for a secondary network, by the name the Pod reports', () => {
    const vmi = testVmi(
      withInterface({ name: 'blue', bridge: {} }, { name: 'blue', multus: { networkName: 'blue-net' } }),
    );
    vmi.status = { interfaces: [{ name: 'blue', podInterfaceName: 'pod16477688c0e' }] };
    const [iface] = runConfigurator(interfacesConfigurator, vmi, testCtx({})).devices.interfaces;
    expect(iface?.target).toEqual({ dev: 'tap16477688c0e', managed: 'no' });
  });
});
