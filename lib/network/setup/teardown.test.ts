import { describe, expect, it } from '@jest/globals';
import type { Interface, Network } from '../../kubevirt/index.ts';
import type { Link } from './pod-interface.ts';
import { planTeardown, renderTeardown } from './teardown.ts';

const POD: Network = { name: 'default', pod: {} };
const BLUE: Network = { name: 'blue', multus: { networkName: 'ns/blue' } };

describe('planTeardown', () => {
  it.each<[string, { iface: Interface; network: Network; podIface: string }, Link[], string[]]>([
    [
      'masquerade',
      { iface: { name: 'default', masquerade: {} }, network: POD, podIface: 'eth0' },
      [
        { name: 'tap0', kind: 'tun' },
        { name: 'k6t-eth0', kind: 'bridge' },
      ],
      ['ip', 'ip6'],
    ],
    [
      'bridge on the pod network',
      { iface: { name: 'default', bridge: {} }, network: POD, podIface: 'eth0' },
      [
        { name: 'tap0', kind: 'tun' },
        { name: 'k6t-eth0', kind: 'bridge' },
        { name: 'eth0', kind: 'dummy' },
      ],
      [],
    ],
    [
      'bridge on a secondary network',
      { iface: { name: 'blue', bridge: {} }, network: BLUE, podIface: 'pod16477688c0e' },
      [
        { name: 'tap16477688c0e', kind: 'tun' },
        { name: 'k6t-16477688c0e', kind: 'bridge' },
        { name: 'pod16477688c0e', kind: 'dummy' },
      ],
      [],
    ],
  ])('%s', (_case, { iface, network, podIface }, links, natFamilies) => {
    expect(planTeardown(iface, network, podIface)).toEqual({ links, natFamilies });
  });

  it('refuses another binding', () => {
    expect(() => planTeardown({ name: 'default', sriov: {} }, POD, 'eth0')).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID' }),
    );
  });
});

describe('renderTeardown', () => {
  const bridged = planTeardown({ name: 'default', bridge: {} }, POD, 'eth0');
  const masqueraded = planTeardown({ name: 'default', masquerade: {} }, POD, 'eth0');

  it.each<[string, Link[], string[]]>([
    ['nothing there', [{ name: 'lo', kind: '' }], []],
    [
      'all there',
      [
        { name: 'eth0', kind: 'dummy' },
        { name: 'eth0-nic', kind: 'veth' },
        { name: 'k6t-eth0', kind: 'bridge' },
        { name: 'tap0', kind: 'tun' },
      ],
      ['link del dev tap0', 'link del dev k6t-eth0', 'link del dev eth0'],
    ],
    [
      "the Pod's own eth0 is no dummy: it stays",
      [
        { name: 'eth0', kind: 'veth' },
        { name: 'k6t-eth0', kind: 'bridge' },
      ],
      ['link del dev k6t-eth0'],
    ],
  ])('bridge binding, %s', (_case, present, ipBatch) => {
    expect(renderTeardown(bridged, present)).toEqual({ ipBatch, nftScript: '' });
  });

  it('masquerade: the links and both NAT tables', () => {
    expect(renderTeardown(masqueraded, [{ name: 'k6t-eth0', kind: 'bridge' }])).toEqual({
      ipBatch: ['link del dev k6t-eth0'],
      nftScript: 'add table ip nat\ndelete table ip nat\nadd table ip6 nat\ndelete table ip6 nat\n',
    });
  });
});
