import { describe, it } from '@jest/globals';
import type { Interface } from '../v1/network.ts';
import { checkSpecRow, dup, inv, ns, req, type Row, type Spec } from './testing/fixtures.ts';

const I = 'spec.domain.devices.interfaces';

const onFirst =
  (change: Partial<Interface>): ((s: Spec) => void) =>
  (s) => {
    const iface = s.domain.devices.interfaces?.[0];
    if (iface !== undefined) Object.assign(iface, change);
  };

/** A second interface `extra`, a bridge on a Multus network. */
const withExtra =
  (change: Partial<Interface>): ((s: Spec) => void) =>
  (s) => {
    (s.domain.devices.interfaces ??= []).push({ name: 'extra', bridge: {}, ...change });
    (s.networks ??= []).push({ name: 'extra', multus: { networkName: 'nad' } });
  };

describe('validateVmiSpec: interface fields', () => {
  it.each<Row>([
    [
      'forwarded ports on the pod network',
      onFirst({ ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
      [],
    ],
    [
      'a name with a dot',
      (s) => {
        s.domain.devices.interfaces = [{ name: 'pod.net', masquerade: {} }];
        s.networks = [{ name: 'pod.net', pod: {} }];
      },
      [
        inv(
          `${I}[0].name`,
          'Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)',
        ),
      ],
    ],
    [
      'an unknown model',
      onFirst({ model: 'vmxnet3' }),
      [ns(`${I}[0].model`, `interface ${I}[0].name uses model vmxnet3 that is not supported.`)],
    ],
    [
      'a malformed MAC address',
      onFirst({ macAddress: '02:00:00:00:00' }),
      [inv(`${I}[0].macAddress`, `interface ${I}[0].name has malformed MAC address (02:00:00:00:00).`)],
    ],
    [
      'an EUI-64 MAC address',
      onFirst({ macAddress: '02:00:00:00:00:00:00:01' }),
      [
        inv(
          `${I}[0].macAddress`,
          `interface ${I}[0].name has too long MAC address (02:00:00:00:00:00:00:01).`,
        ),
      ],
    ],
    ['a dotted MAC address', onFirst({ macAddress: '0200.5e00.5301' }), []],
    [
      'a malformed PCI address',
      onFirst({ pciAddress: '0000:81:01' }),
      [inv(`${I}[0].pciAddress`, `interface ${I}[0].name has malformed PCI address (0000:81:01).`)],
    ],
    [
      'port names taken twice or invalid',
      onFirst({
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 8080 },
          { name: 'HTTP', port: 81 },
        ],
      }),
      [
        dup(`${I}[0].ports[1].name`, 'Duplicate name of the port: http'),
        inv(`${I}[0].ports[2].name`, 'Invalid name of the port: HTTP'),
      ],
    ],
    [
      'port 0, an out-of-range port and an unknown protocol',
      onFirst({ ports: [{ port: 0 }, { port: 70000 }, { port: 53, protocol: 'SCTP' }] }),
      [
        req(`${I}[0].ports[0]`, 'Port field is mandatory.'),
        inv(`${I}[0].ports[1]`, 'Port field must be in range 0 < x < 65536.'),
        inv(`${I}[0].ports[2].protocol`, 'Unknown protocol, only TCP or UDP allowed'),
      ],
    ],
    ['ports on a Multus network are not checked', withExtra({ ports: [{ port: 0 }] }), []],
    [
      'duplicate and out-of-range DHCP private options',
      onFirst({
        dhcpOptions: {
          privateOptions: [
            { option: 240, value: 'a' },
            { option: 240, value: 'b' },
            { option: 12, value: 'c' },
          ],
        },
      }),
      [
        inv('spec', 'Found Duplicates: you have provided duplicate DHCPPrivateOptions'),
        inv('spec', 'provided DHCPPrivateOptions are out of range, must be in range 224 to 254'),
      ],
    ],
    [
      'an NTP server that is no IPv4 address',
      onFirst({ dhcpOptions: { ntpServers: ['10.0.0.1', '::ffff:10.0.0.2', 'fd00::1'] } }),
      [inv(`${I}[0].dhcpOptions.ntpServers[2]`, 'NTP servers must be a list of valid IPv4 addresses.')],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });
});
