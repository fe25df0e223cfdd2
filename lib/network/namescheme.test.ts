import { describe, expect, it } from '@jest/globals';
import type { Network, VirtualMachineInstanceNetworkInterface } from '../kubevirt/index.ts';
import {
  hashedNameScheme,
  hashedPodInterfaceName,
  isOrdinalSecondaryName,
  nameSchemeFromPod,
  ordinalNameScheme,
  podInterfaceName,
} from './namescheme.ts';

const pod = (name: string): Network => ({ name, pod: {} });
const multus = (name: string, isDefault = false): Network => ({
  name,
  multus: { networkName: `ns/${name}`, ...(isDefault && { default: true }) },
});

describe('pod interface names', () => {
  it.each<[string, string]>([
    ['network1', 'poda7662f44d65'],
    ['network2', 'pod27f4a77f94e'],
    ['red', 'podb1f51a511f1'],
    ['green', 'podba4788b226a'],
    ['blue', 'pod16477688c0e'],
  ])('hashes network %s to %s', (network, name) => {
    expect(hashedPodInterfaceName(network)).toBe(name);
  });

  it('hashes any network name to 14 characters', () => {
    expect(hashedPodInterfaceName('a-network-name-far-longer-than-an-interface-name')).toHaveLength(14);
  });

  it.each<[string, Network[], [string, string][], [string, string][]]>([
    ['no networks', [], [], []],
    ['the pod network', [pod('default')], [['default', 'eth0']], [['default', 'eth0']]],
    [
      'the pod network and two secondary ones',
      [pod('default'), multus('network1'), multus('network2')],
      [
        ['default', 'eth0'],
        ['network1', 'poda7662f44d65'],
        ['network2', 'pod27f4a77f94e'],
      ],
      [
        ['default', 'eth0'],
        ['network1', 'net1'],
        ['network2', 'net2'],
      ],
    ],
    [
      'a default Multus network after secondary ones',
      [multus('red'), multus('default', true), multus('green')],
      [
        ['red', 'podb1f51a511f1'],
        ['default', 'eth0'],
        ['green', 'podba4788b226a'],
      ],
      [
        ['red', 'net1'],
        ['default', 'eth0'],
        ['green', 'net2'],
      ],
    ],
    ['secondary networks only', [multus('blue')], [['blue', 'pod16477688c0e']], [['blue', 'net1']]],
    [
      'a second pod network (only the first is eth0)',
      [pod('default'), pod('other'), multus('red')],
      [
        ['default', 'eth0'],
        ['red', 'podb1f51a511f1'],
      ],
      [
        ['default', 'eth0'],
        ['red', 'net1'],
      ],
    ],
  ])('%s: hashed and ordinal schemes', (_what, networks, hashed, ordinal) => {
    expect(hashedNameScheme(networks)).toEqual(new Map(hashed));
    expect(ordinalNameScheme(networks)).toEqual(new Map(ordinal));
  });

  it.each<[string, boolean]>([
    ['net1', true],
    ['net12', true],
    ['eth0', false],
    ['net', false],
    ['net1a', false],
    ['podb1f51a511f1', false],
  ])('%s is an ordinal secondary name: %s', (name, ordinal) => {
    expect(isOrdinalSecondaryName(name)).toBe(ordinal);
  });

  it.each<[string, string[], 'hashed' | 'ordinal']>([
    ['the Pod reports nothing', [], 'hashed'],
    ['the Pod reports eth0 only', ['eth0'], 'hashed'],
    ['the Pod reports hashed names', ['eth0', 'podb1f51a511f1', 'podba4788b226a'], 'hashed'],
    ['the Pod reports ordinal names', ['eth0', 'net1', 'net2'], 'ordinal'],
    ['the Pod reports one ordinal name', ['eth0', 'podb1f51a511f1', 'net2'], 'ordinal'],
  ])('from the Pod, when %s: the %s scheme', (_what, reported, scheme) => {
    const networks = [pod('default'), multus('red'), multus('green')];
    const names = {
      hashed: [
        ['default', 'eth0'],
        ['red', 'podb1f51a511f1'],
        ['green', 'podba4788b226a'],
      ],
      ordinal: [
        ['default', 'eth0'],
        ['red', 'net1'],
        ['green', 'net2'],
      ],
    } satisfies Record<string, [string, string][]>;
    expect(nameSchemeFromPod(networks, reported)).toEqual(new Map(names[scheme]));
  });

  it.each<[string, Network, VirtualMachineInstanceNetworkInterface[], string]>([
    [
      'a secondary network, whatever the status says',
      multus('red'),
      [{ name: 'red', podInterfaceName: 'net1' }],
      'podb1f51a511f1',
    ],
    ['the pod network without a status', pod('default'), [], 'eth0'],
    [
      'the pod network with an empty reported name',
      pod('default'),
      [{ name: 'default', podInterfaceName: '' }],
      'eth0',
    ],
    [
      'the pod network as reported',
      pod('default'),
      [{ name: 'default', podInterfaceName: 'ovn-udn1' }],
      'ovn-udn1',
    ],
    [
      'the pod network, another network reported',
      pod('default'),
      [{ name: 'red', podInterfaceName: 'x' }],
      'eth0',
    ],
    [
      'the default Multus network as reported',
      multus('default', true),
      [{ name: 'default', podInterfaceName: 'eth1' }],
      'eth1',
    ],
  ])('the pod interface of %s', (_what, network, statuses, name) => {
    expect(podInterfaceName(network, statuses)).toBe(name);
  });
});
