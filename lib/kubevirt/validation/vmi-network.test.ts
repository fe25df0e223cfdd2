import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import type { Interface, Network } from '../v1/network.ts';
import { GATES } from './context.ts';
import {
  checkSpecRow,
  ctxWith,
  dup,
  inv,
  patched,
  raw,
  req,
  type Row,
  type Spec,
} from './testing/fixtures.ts';
import { networkCreation } from './vmi-network.ts';

const I = 'spec.domain.devices.interfaces';
const N = 'spec.networks';

/** A second interface `extra` (a bridge unless given) on a Multus network `extra` (unless given). */
const withExtra =
  (
    iface: Omit<Interface, 'name'> = { bridge: {} },
    net: Omit<Network, 'name'> = { multus: { networkName: 'nad' } },
  ): ((s: Spec) => void) =>
  (s) => {
    (s.domain.devices.interfaces ??= []).push({ name: 'extra', ...iface });
    (s.networks ??= []).push({ name: 'extra', ...net });
  };

/** The first interface (`default`, on the pod network) with these fields instead of masquerade. */
const firstIs =
  (iface: Omit<Interface, 'name'>): ((s: Spec) => void) =>
  (s) => {
    s.domain.devices.interfaces = [{ name: 'default', ...iface }];
  };

const onFirst =
  (change: Partial<Interface>): ((s: Spec) => void) =>
  (s) => {
    const iface = s.domain.devices.interfaces?.[0];
    if (iface !== undefined) Object.assign(iface, change);
  };

describe('validateVmiSpec: networks and bindings', () => {
  it.each<Row>([
    ['a bridge on a Multus network', withExtra(), []],
    ['a second pod network (the fork lifts KubeVirt’s limit of one)', withExtra(undefined, { pod: {} }), []],
    [
      'Deckhouse’s shape: pod networks only, each NIC on the bpfbridge binding plugin',
      (s) => {
        const bpf = { binding: { name: 'bpfbridge' }, model: 'virtio' } as const;
        s.domain.devices.interfaces = [
          { name: 'default', ...bpf, acpiIndex: 1 },
          { name: 'veth_n1a2b3c4d', ...bpf, acpiIndex: 2 },
          { name: 'veth_cn5e6f7a8b', ...bpf, acpiIndex: 3 },
        ];
        s.networks = [
          { name: 'default', pod: {} },
          { name: 'veth_n1a2b3c4d', pod: {} },
          { name: 'veth_cn5e6f7a8b', pod: {} },
        ];
      },
      [],
    ],
    [
      'a pod network beside a Multus default network',
      withExtra(undefined, { multus: { networkName: 'nad', default: true } }),
      [inv(N, 'Pod network cannot be defined when Multus default network is defined')],
    ],
    [
      'two Multus default networks',
      (s) => {
        s.domain.devices.interfaces = [
          { name: 'a', bridge: {} },
          { name: 'b', bridge: {} },
        ];
        s.networks = [
          { name: 'a', multus: { networkName: 'x', default: true } },
          { name: 'b', multus: { networkName: 'y', default: true } },
        ];
      },
      [inv(N, 'Multus CNI should only have one default network')],
    ],
    ['a network without a type', withExtra(undefined, {}), [req(`${N}[1]`, 'should have a network type')]],
    [
      'a network of two types',
      withExtra(undefined, { pod: {}, multus: { networkName: 'nad' } }),
      [req(`${N}[1]`, 'should have only one network type')],
    ],
    [
      'a Multus network without a name',
      withExtra(undefined, { multus: { networkName: '' } }),
      [req(`${N}[1]`, 'CNI delegating plugin must have a networkName')],
    ],
    [
      'an unknown interface state',
      withExtra({ bridge: {}, state: raw('gone') }),
      [inv(`${I}[1].state`, 'logical extra interface state value is unsupported: gone')],
    ],
    [
      'an SR-IOV interface with a link state',
      withExtra({ sriov: {}, state: 'down' }),
      [inv(`${I}[1].state`, '"extra" interface\'s state "down" is not supported for SR-IOV NICs')],
    ],
    [
      'an absent masquerade interface on the default network',
      onFirst({ state: 'absent' }),
      [
        inv(`${I}[0].state`, '"default" interface\'s state "absent" is supported only for bridge binding'),
        inv(`${I}[0].state`, '"default" interface\'s state "absent" is not supported on default networks'),
      ],
    ],
    [
      'a binding plugin beside a binding method',
      withExtra({ bridge: {}, binding: { name: 'plugin' } }),
      [
        inv(
          `${I}[1].binding`,
          'logical extra interface cannot have both binding plugin and interface binding method',
        ),
      ],
    ],
    [
      'masquerade on a Multus network',
      withExtra({ masquerade: {} }),
      [inv(`${I}[1].name`, 'Masquerade interface only implemented with pod network')],
    ],
    [
      "masquerade with the in-pod bridge's MAC",
      onFirst({ macAddress: '02:00:00:00:00:00' }),
      [
        inv(
          `${I}[0].macAddress`,
          'The requested MAC address is reserved for the in-pod bridge. Please choose another one.',
        ),
      ],
    ],
    [
      'macvtap (discontinued)',
      withExtra({ macvtap: {} }),
      [inv(`${I}[1].name`, 'Macvtap feature gate is not enabled')],
    ],
    [
      'passt on a Multus network (discontinued)',
      withExtra({ passt: {} }),
      [
        inv(`${I}[1].name`, 'Passt feature gate is not enabled'),
        inv(`${I}[1].name`, 'Passt interface only implemented with pod network'),
      ],
    ],
    [
      'two networks of one name',
      (s) => s.networks?.push({ name: 'default', pod: {} }),
      [
        dup(
          `${N}[1].name`,
          'Network with name "default" already exists, every network must have a unique name',
        ),
      ],
    ],
    [
      'a network without an interface',
      (s) => s.networks?.push({ name: 'lonely', multus: { networkName: 'nad' } }),
      [req(`${N}[1].name`, `${N}[1].name 'lonely' not found.`)],
    ],
    [
      'two interfaces on one network',
      (s) => s.domain.devices.interfaces?.push({ name: 'default', masquerade: {} }),
      [dup(`${I}[1].name`, 'Only one interface can be connected to one specific network')],
    ],
    [
      'an interface without a network',
      (s) => s.domain.devices.interfaces?.push({ name: 'lonely', bridge: {} }),
      [inv(`${I}[1].name`, `${I}[1].name 'lonely' not found.`)],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it('a bridge on the pod network when the cluster forbids it', () => {
    const ctx = ctxWith(undefined, {
      cluster: { ...DEFAULT_CLUSTER_DEFAULTS, permitBridgeInterfaceOnPodNetwork: false },
    });
    checkSpecRow(
      firstIs({ bridge: {} }),
      [inv(`${I}[0].name`, 'Bridge on pod network configuration is not enabled under kubevirt-config')],
      ctx,
    );
  });

  it('macvtap with its gate on a Multus network', () => {
    checkSpecRow(withExtra({ macvtap: {} }), [], ctxWith([GATES.MACVTAP]));
  });
});

describe('networkCreation', () => {
  it('refuses slirp', () => {
    const spec = patched(firstIs({ slirp: {} }));
    expect(networkCreation(spec, ctxWith(), 'spec')).toEqual([
      inv(`${I}[0].slirp`, 'Slirp interface support has been discontinued since v1.3'),
    ]);
  });
});
