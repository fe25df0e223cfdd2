import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceNetworkInterface as IfaceStatus } from '../../kubevirt/v1/vmi-status.ts';
import { newVmi, withInterface } from '../../kubevirt/testing/builders.ts';
import type { DomainJson, InterfaceJson, InterfaceStatusJson } from '../../rpc/index.ts';
import { interfacesStatus } from './interfaces-status.ts';

function domainWith(interfaces: InterfaceJson[], agent: InterfaceStatusJson[] | null = null): DomainJson {
  return {
    Spec: { Name: 'ns_vm', Devices: { Interfaces: interfaces } },
    Status: { Interfaces: agent },
  } as unknown as DomainJson;
}

const nic = (name: string, extra: Partial<InterfaceJson> = {}): InterfaceJson => ({
  Type: 'ethernet',
  Source: {},
  Model: { Type: 'virtio-non-transitional' },
  Alias: { Name: `ua-${name}` },
  ...extra,
});

const vmi = newVmi(
  withInterface({ name: 'default', masquerade: {} }, { name: 'default', pod: {} }),
  withInterface({ name: 'blue', bridge: {} }, { name: 'blue', multus: { networkName: 'blue-net' } }),
);

describe('interfacesStatus', () => {
  it('reports each domain interface with the Pod interface addresses, the Pod network first', () => {
    const domain = domainWith([
      nic('blue', { MAC: { MAC: '02:00:00:00:00:02' }, Driver: { Name: 'vhost', Queues: 2 } }),
      nic('default', { MAC: { MAC: '52:54:00:12:34:56' }, LinkState: { State: 'down' } }),
    ]);
    const ips = new Map([['default', ['10.244.0.7', 'fd00::7']]]);
    expect(interfacesStatus(vmi, domain, ips)).toEqual([
      {
        name: 'default',
        mac: '52:54:00:12:34:56',
        ipAddress: '10.244.0.7',
        ipAddresses: ['10.244.0.7', 'fd00::7'],
        infoSource: 'domain',
        queueCount: 1,
        linkState: 'down',
      },
      { name: 'blue', mac: '02:00:00:00:00:02', infoSource: 'domain', queueCount: 2, linkState: 'up' },
    ]);
  });

  it('leaves the status alone without a domain, or with nothing to report', () => {
    expect(interfacesStatus(vmi, undefined, new Map())).toBeUndefined();
    expect(interfacesStatus(vmi, domainWith([]), new Map())).toBeUndefined();
  });

  it('keeps the Pod network entry by name while the domain lacks it, and each podInterfaceName', () => {
    const prev = structuredClone(vmi);
    prev.status = {
      interfaces: [
        { name: 'default', podInterfaceName: 'eth0' },
        { name: 'blue', podInterfaceName: 'pod16477688c0e' },
      ],
    };
    expect(interfacesStatus(prev, domainWith([nic('blue')]), new Map())).toEqual([
      { name: 'default', podInterfaceName: 'eth0' },
      {
        name: 'blue',
        infoSource: 'domain',
        queueCount: 1,
        linkState: 'up',
        podInterfaceName: 'pod16477688c0e',
      },
    ]);
  });

  it('takes the guest agent’s name and, per family, addresses where the status has none', () => {
    const domain = domainWith(
      [nic('default', { MAC: { MAC: '52:54:00:12:34:56' } })],
      [
        {
          Mac: '52:54:00:12:34:56',
          Ip: '10.0.2.2',
          IPs: ['10.0.2.2', 'fe80::5054:ff:fe12:3456'],
          InterfaceName: 'eth0',
        },
        { Mac: '02:42:ac:11:00:01', Ip: '172.17.0.1', IPs: ['172.17.0.1'], InterfaceName: 'docker0' },
      ],
    );
    expect(interfacesStatus(vmi, domain, new Map([['default', ['10.244.0.7']]]))).toEqual([
      {
        name: 'default',
        mac: '52:54:00:12:34:56',
        ipAddress: '10.244.0.7',
        ipAddresses: ['10.244.0.7', 'fe80::5054:ff:fe12:3456'],
        interfaceName: 'eth0',
        infoSource: 'domain, guest-agent',
        queueCount: 1,
        linkState: 'up',
      },
      {
        mac: '02:42:ac:11:00:01',
        ipAddress: '172.17.0.1',
        ipAddresses: ['172.17.0.1'],
        interfaceName: 'docker0',
        infoSource: 'guest-agent',
      },
    ]);
  });

  it('clears the addresses of a family the guest agent reports none of', () => {
    const domain = domainWith(
      [nic('default', { MAC: { MAC: '52:54:00:12:34:56' } })],
      [{ Mac: '52:54:00:12:34:56', Ip: '', IPs: [], InterfaceName: 'eth0' }],
    );
    expect(interfacesStatus(vmi, domain, new Map([['default', ['10.244.0.7']]]))?.[0]).toEqual({
      name: 'default',
      mac: '52:54:00:12:34:56',
      interfaceName: 'eth0',
      infoSource: 'domain, guest-agent',
      queueCount: 1,
      linkState: 'up',
    });
  });

  describe('what the controller learned from Multus', () => {
    /** The hashed Pod interface name of network `blue` (lib/network/namescheme.test.ts). */
    const BLUE_POD = 'pod16477688c0e';
    const fromController = (interfaces: IfaceStatus[]): VirtualMachineInstance => {
      const v = structuredClone(vmi);
      v.status = { interfaces };
      return v;
    };
    const controllerWrote: IfaceStatus[] = [
      { name: 'default', podInterfaceName: 'eth0' },
      { name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD },
    ];
    const domain = domainWith(
      [
        nic('default', { MAC: { MAC: '52:54:00:12:34:56' } }),
        nic('blue', { MAC: { MAC: '02:00:00:00:00:02' } }),
      ],
      [{ Mac: '02:00:00:00:00:02', Ip: '192.168.1.5', IPs: ['192.168.1.5'], InterfaceName: 'eth1' }],
    );

    it('is kept when the handler reports the domain and the guest agent', () => {
      expect(interfacesStatus(fromController(controllerWrote), domain, new Map())).toEqual([
        {
          name: 'default',
          mac: '52:54:00:12:34:56',
          infoSource: 'domain',
          queueCount: 1,
          linkState: 'up',
          podInterfaceName: 'eth0',
        },
        {
          name: 'blue',
          mac: '02:00:00:00:00:02',
          ipAddress: '192.168.1.5',
          ipAddresses: ['192.168.1.5'],
          interfaceName: 'eth1',
          infoSource: 'domain, guest-agent, multus-status',
          queueCount: 1,
          linkState: 'up',
          podInterfaceName: BLUE_POD,
        },
      ]);
    });

    it('leaves its own result as it is', () => {
      const once = interfacesStatus(fromController(controllerWrote), domain, new Map()) ?? [];
      expect(interfacesStatus(fromController(once), domain, new Map())).toEqual(once);
    });

    it.each<[string, IfaceStatus[], IfaceStatus[]]>([
      [
        'an interface of the spec the domain lacks yet: a name-only entry, after the others',
        controllerWrote,
        [
          { name: 'default', infoSource: 'domain', queueCount: 1, linkState: 'up', podInterfaceName: 'eth0' },
          { name: 'blue', infoSource: 'multus-status', podInterfaceName: BLUE_POD },
        ],
      ],
      [
        'an interface no longer in the spec: dropped',
        [
          { name: 'default', podInterfaceName: 'eth0' },
          { name: 'red', infoSource: 'multus-status', podInterfaceName: 'podb1f51a511f1' },
        ],
        [{ name: 'default', infoSource: 'domain', queueCount: 1, linkState: 'up', podInterfaceName: 'eth0' }],
      ],
      [
        'an entry without multus-status: not kept',
        [
          { name: 'default', podInterfaceName: 'eth0' },
          { name: 'blue', infoSource: 'guest-agent', podInterfaceName: BLUE_POD },
        ],
        [{ name: 'default', infoSource: 'domain', queueCount: 1, linkState: 'up', podInterfaceName: 'eth0' }],
      ],
    ])('%s', (_n, previous, want) => {
      expect(interfacesStatus(fromController(previous), domainWith([nic('default')]), new Map())).toEqual(
        want,
      );
    });
  });
});
