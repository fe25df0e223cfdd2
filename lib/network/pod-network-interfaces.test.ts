import { describe, expect, it } from '@jest/globals';
import { newVmi, withInterface, withSpec } from '../kubevirt/testing/builders.ts';
import { domainAttachmentByInterfaceName, podNetworkInterfaces } from './pod-network-interfaces.ts';

const pod = { name: 'default', pod: {} };

describe('podNetworkInterfaces', () => {
  it('takes the masquerade and bridge interfaces on the Pod network, with their indexes and Pod interface', () => {
    const vmi = newVmi(
      withInterface({ name: 'blue', bridge: {} }, { name: 'blue', multus: { networkName: 'blue-net' } }),
      withInterface({ name: 'default', masquerade: {} }, pod),
    );
    expect(podNetworkInterfaces(vmi)).toEqual([
      {
        iface: { name: 'default', masquerade: {} },
        interfaceIndex: 1,
        network: pod,
        networkIndex: 1,
        podInterfaceName: 'eth0',
        queues: 1,
      },
    ]);
  });

  it.each([
    ['an absent interface', { name: 'default', masquerade: {}, state: 'absent' as const }],
    ['SR-IOV', { name: 'default', sriov: {} }],
    ['a binding plugin', { name: 'default', binding: { name: 'passt' } }],
  ])('leaves out %s', (_, iface) => {
    expect(podNetworkInterfaces(newVmi(withInterface(iface, pod)))).toEqual([]);
  });

  it('gives a virtio tap one queue per vCPU with multi-queue, other models one', () => {
    const vmi = newVmi(
      withInterface({ name: 'default', bridge: {} }, pod),
      withInterface({ name: 'e', masquerade: {}, model: 'e1000e' }, { name: 'e', pod: {} }),
      withSpec((s) => {
        s.domain.devices.networkInterfaceMultiqueue = true;
        s.domain.cpu = { cores: 2, sockets: 2 };
      }),
    );
    expect(podNetworkInterfaces(vmi).map((w) => w.queues)).toEqual([4, 1]);
  });
});

const PLUGINS = {
  deckhouse: { domainAttachmentType: 'tap' },
  passt: { domainAttachmentType: 'managedTap' },
  sidecar: {},
};

describe('domainAttachmentByInterfaceName', () => {
  it('is tap for masquerade, bridge and tap or managedTap plugins, nothing for the rest', () => {
    expect(
      domainAttachmentByInterfaceName(
        [
          { name: 'm', masquerade: {} },
          { name: 'b', bridge: {} },
          { name: 'd', binding: { name: 'deckhouse' } },
          { name: 'p', binding: { name: 'passt' } },
          { name: 's', binding: { name: 'sidecar' } },
          { name: 'u', binding: { name: 'unknown' } },
          { name: 'v', sriov: {} },
          { name: 'proto', binding: { name: 'toString' } },
        ],
        PLUGINS,
      ),
    ).toEqual({ m: 'tap', b: 'tap', d: 'tap', p: 'tap' });
  });
});

describe('podNetworkInterfaces with binding plugins', () => {
  it('takes the interfaces of plugins attached by tap, on the Pod network or a secondary one', () => {
    const vmi = newVmi(
      withInterface({ name: 'default', binding: { name: 'deckhouse' } }, pod),
      withInterface(
        { name: 'blue', binding: { name: 'deckhouse' } },
        { name: 'blue', multus: { networkName: 'b' } },
      ),
      withInterface(
        { name: 'red', binding: { name: 'passt' } },
        { name: 'red', multus: { networkName: 'r' } },
      ),
    );
    expect(podNetworkInterfaces(vmi, PLUGINS).map((w) => [w.iface.name, w.podInterfaceName])).toEqual([
      ['default', 'eth0'],
      ['blue', 'pod16477688c0e'],
    ]);
    expect(podNetworkInterfaces(vmi)).toEqual([]);
  });
});
