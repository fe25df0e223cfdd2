import { describe, expect, it } from '@jest/globals';
import type {
  Network,
  VirtualMachineInstance,
  VirtualMachineInstanceNetworkInterface as IfaceStatus,
} from '../../kubevirt/index.ts';
import { newVmi, withInterface } from '../../kubevirt/testing/builders.ts';
import type { PodNetworkStatus } from '../../network/multus-status.ts';
import { interfacesFromPod } from './interfaces-status.ts';

/** The hashed Pod interface name of network `blue` (lib/network/namescheme.test.ts). */
const BLUE_POD = 'pod16477688c0e';

const podNet: Network = { name: 'default', pod: {} };
const blueNet: Network = { name: 'blue', multus: { networkName: 'blue-net' } };
const altNet: Network = { name: 'alt', multus: { networkName: 'alt-net', default: true } };

function vmiWith(networks: Network[], interfaces?: IfaceStatus[]): VirtualMachineInstance {
  const v = newVmi(...networks.map((n) => withInterface({ name: n.name, bridge: {} }, n)));
  if (interfaces !== undefined) v.status = { interfaces };
  return v;
}

const primaryOnly: PodNetworkStatus[] = [{ interface: '', default: true }];
const primaryEth0: PodNetworkStatus[] = [{ interface: 'eth0', default: true }];
const customPrimary: PodNetworkStatus[] = [
  { interface: 'eth0', default: false },
  { interface: 'custom-iface', default: true },
];
const withBlue: PodNetworkStatus[] = [...primaryOnly, { interface: BLUE_POD, default: false }];
const withBlueOrdinal: PodNetworkStatus[] = [...primaryOnly, { interface: 'net1', default: false }];

/** What the handler reports for the Pod network once the guest agent answers. */
const handlerDefault: IfaceStatus = {
  name: 'default',
  mac: '52:54:00:12:34:56',
  ipAddress: '10.244.0.7',
  ipAddresses: ['10.244.0.7', 'fd00::7'],
  interfaceName: 'eth0',
  infoSource: 'domain, guest-agent',
  queueCount: 1,
  linkState: 'up',
};
const handlerBlue: IfaceStatus = {
  name: 'blue',
  mac: '02:00:00:00:00:02',
  interfaceName: 'eth1',
  infoSource: 'domain, guest-agent',
  queueCount: 1,
  linkState: 'up',
};
const guestOwn: IfaceStatus = {
  mac: '02:42:ac:11:00:01',
  ipAddress: '172.17.0.1',
  ipAddresses: ['172.17.0.1'],
  interfaceName: 'docker0',
  infoSource: 'guest-agent',
};

describe('interfacesFromPod', () => {
  it.each<[string, [Network[], IfaceStatus[]?], PodNetworkStatus[], IfaceStatus[] | undefined]>([
    ['no networks, no Multus report', [[]], [], undefined],
    ['no networks, Multus reports the Pod network', [[]], primaryOnly, undefined],
    ['the Pod network, no Multus report', [[podNet]], [], [{ name: 'default', podInterfaceName: 'eth0' }]],
    [
      'the Pod network, Multus names no interface',
      [[podNet]],
      primaryOnly,
      [{ name: 'default', podInterfaceName: 'eth0' }],
    ],
    [
      'the Pod network, Multus names eth0',
      [[podNet]],
      primaryEth0,
      [{ name: 'default', podInterfaceName: 'eth0' }],
    ],
    [
      'the Pod network on a custom interface',
      [[podNet]],
      customPrimary,
      [{ name: 'default', podInterfaceName: 'custom-iface' }],
    ],
    [
      'the Pod network reported before: kept, with the Pod interface',
      [[podNet], [{ name: 'default', infoSource: 'domain, guest-agent' }]],
      primaryEth0,
      [{ name: 'default', infoSource: 'domain, guest-agent', podInterfaceName: 'eth0' }],
    ],
    [
      'the default Multus network',
      [[altNet]],
      [{ interface: 'eth0', default: true }],
      [{ name: 'alt', podInterfaceName: 'eth0' }],
    ],
    ['a secondary network Multus does not report', [[blueNet]], [], undefined],
    [
      'a secondary network Multus reports (hashed name)',
      [[blueNet]],
      withBlue,
      [{ name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD }],
    ],
    [
      'a secondary network Multus reports (ordinal name)',
      [[blueNet]],
      withBlueOrdinal,
      [{ name: 'blue', infoSource: 'multus-status', podInterfaceName: 'net1' }],
    ],
    [
      'the Pod network and a secondary one, the primary added',
      [[podNet, blueNet], [{ name: 'blue', infoSource: 'multus-status' }]],
      withBlue,
      [
        { name: 'default', podInterfaceName: 'eth0' },
        { name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD },
      ],
    ],
    [
      'the Pod network on a custom interface and a secondary one',
      [[podNet, blueNet]],
      [...customPrimary, { interface: BLUE_POD, default: false }],
      [
        { name: 'default', podInterfaceName: 'custom-iface' },
        { name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD },
      ],
    ],
    [
      'multus-status dropped once Multus no longer reports the interface',
      [[blueNet], [{ name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD }]],
      primaryOnly,
      [{ name: 'blue', podInterfaceName: BLUE_POD }],
    ],
    [
      'another source kept while Multus does not report the interface',
      [[blueNet], [{ name: 'blue', infoSource: 'guest-agent' }]],
      primaryOnly,
      [{ name: 'blue', infoSource: 'guest-agent', podInterfaceName: BLUE_POD }],
    ],
    [
      'an entry without a source kept while Multus does not report the interface',
      [[blueNet], [{ name: 'blue' }]],
      primaryOnly,
      [{ name: 'blue', podInterfaceName: BLUE_POD }],
    ],
    [
      'the guest’s own interfaces kept, after the networks',
      [[blueNet], [guestOwn]],
      withBlue,
      [{ name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD }, guestOwn],
    ],
    [
      'an interface no longer in the spec kept',
      [[podNet], [{ name: 'gone', infoSource: 'domain' }]],
      [],
      [
        { name: 'default', podInterfaceName: 'eth0' },
        { name: 'gone', infoSource: 'domain' },
      ],
    ],
  ])('%s', (_n, [networks, current], statuses, want) => {
    expect(interfacesFromPod(vmiWith(networks, current), statuses)).toEqual(want);
  });

  it('keeps what the handler reported and adds what Multus says', () => {
    const v = vmiWith([podNet, blueNet], [handlerDefault, handlerBlue, guestOwn]);
    expect(interfacesFromPod(v, withBlue)).toEqual([
      { ...handlerDefault, podInterfaceName: 'eth0' },
      { ...handlerBlue, infoSource: 'domain, guest-agent, multus-status', podInterfaceName: BLUE_POD },
      guestOwn,
    ]);
  });

  it('leaves its own result as it is', () => {
    const v = vmiWith([podNet, blueNet], [handlerDefault, handlerBlue, guestOwn]);
    const once = interfacesFromPod(v, withBlue);
    const twice = vmiWith([podNet, blueNet], once);
    expect(interfacesFromPod(twice, withBlue)).toBe(twice.status?.interfaces);
  });

  it('keeps the current order when only the order differs', () => {
    const current: IfaceStatus[] = [
      guestOwn,
      { ...handlerBlue, infoSource: 'domain, guest-agent, multus-status', podInterfaceName: BLUE_POD },
      { ...handlerDefault, podInterfaceName: 'eth0' },
    ];
    const v = vmiWith([podNet, blueNet], current);
    expect(interfacesFromPod(v, withBlue)).toBe(current);
  });

  it('keeps an empty list as it is', () => {
    const current: IfaceStatus[] = [];
    expect(interfacesFromPod(vmiWith([], current), [])).toBe(current);
  });

  it('does not touch its input', () => {
    const v = vmiWith([podNet, blueNet], [handlerDefault, { name: 'blue', infoSource: 'multus-status' }]);
    const before = structuredClone(v);
    interfacesFromPod(v, primaryOnly);
    expect(v).toEqual(before);
  });
});
