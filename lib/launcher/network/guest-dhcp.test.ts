import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nopLogger } from '../../kernel/log/log.ts';
import { newVmi, withInterface, withSpec } from '../../kubevirt/testing/builders.ts';
import type { DhcpServerOptions } from '../../network/dhcp/server.ts';
import type { Dhcpv6ServerOptions } from '../../network/dhcpv6/server.ts';
import type { DomainSpec } from '../converter/index.ts';
import { GuestDhcp } from './guest-dhcp.ts';
import type { PodInterfaces } from './pod-interfaces.ts';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

async function podRoot(mtu: string | undefined): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'guest-dhcp-'));
  roots.push(root);
  await mkdir(join(root, 'etc'));
  await writeFile(join(root, 'etc/resolv.conf'), 'nameserver 10.96.0.10\nsearch ns.svc.cluster.local\n');
  if (mtu !== undefined) {
    await mkdir(join(root, 'sys/class/net/eth0'), { recursive: true });
    await writeFile(join(root, 'sys/class/net/eth0/mtu'), mtu);
  }
  return root;
}

const domain = (mac?: string): DomainSpec =>
  ({
    devices: {
      interfaces: [{ type: 'ethernet', model: 'virtio', alias: { name: 'default' }, ...(mac && { mac }) }],
    },
  }) as unknown as DomainSpec;

const vmi = newVmi(
  withInterface({ name: 'default', masquerade: {} }, { name: 'default', pod: {} }),
  withSpec((s) => {
    s.hostname = 'guest1';
  }),
);

function recorder(): {
  started: DhcpServerOptions[];
  closed: number[];
  start: (o: DhcpServerOptions) => Promise<never>;
} {
  const started: DhcpServerOptions[] = [];
  const closed: number[] = [];
  const start = (o: DhcpServerOptions): Promise<never> => {
    started.push(o);
    const n = started.length;
    return Promise.resolve({ port: 67, close: () => Promise.resolve(void closed.push(n)) } as never);
  };
  return { started, closed, start };
}

describe('GuestDhcp', () => {
  it('serves each masquerade interface once, from the Pod facts, and closes what it started', async () => {
    const r = recorder();
    const dhcp = new GuestDhcp({ root: await podRoot('1450\n'), log: nopLogger, start: r.start });
    await dhcp.serve(vmi, domain('52:54:00:00:00:01'));
    await dhcp.serve(vmi, domain('52:54:00:00:00:01'));
    expect(r.started).toHaveLength(1);
    expect(r.started[0]?.address).toBe('0.0.0.0');
    expect(r.started[0]?.config).toMatchObject({
      clientMac: '52:54:00:00:00:01',
      clientIp: '10.0.2.2',
      gateway: '10.0.2.1',
      mtu: 1450,
      dns: ['10.96.0.10'],
      searchDomains: ['ns.svc.cluster.local'],
      hostname: 'guest1',
    });
    await dhcp.close();
    expect(r.closed).toEqual([1]);
  });

  const bridged = newVmi(withInterface({ name: 'default', bridge: {} }, { name: 'default', pod: {} }));
  const podInterface = (ipv4: { address: string; prefixLength: number }[]): PodInterfaces =>
    new Map([
      [
        'eth0',
        {
          name: 'eth0',
          mtu: 1450,
          mac: 'aa:bb:cc:dd:ee:ff',
          ipv4,
          ipv6: [],
          routes: [{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }, { destination: '10.244.0.0/24' }],
        },
      ],
    ]);

  it('serves a bridge interface what its Pod interface had when the launcher started', async () => {
    const r = recorder();
    const podInterfaces = podInterface([{ address: '10.244.0.5', prefixLength: 24 }]);
    const dhcp = new GuestDhcp({
      root: await podRoot(undefined),
      log: nopLogger,
      start: r.start,
      podInterfaces,
    });
    await dhcp.serve(bridged, domain('aa:bb:cc:dd:ee:ff'));
    expect(r.started.map((s) => s.config)).toEqual([
      expect.objectContaining({
        clientMac: 'aa:bb:cc:dd:ee:ff',
        clientIp: '10.244.0.5',
        prefixLength: 24,
        gateway: '10.244.0.1',
        serverIp: '169.254.75.10',
        broadcastAddress: '10.244.0.255',
        routes: [{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }],
        mtu: 1450,
        dns: ['10.96.0.10'],
      }),
    ]);
  });

  it('adds a DHCPv6 server on the bridge of a masquerade interface whose Pod has IPv6, once', async () => {
    const r = recorder();
    const v6: Dhcpv6ServerOptions[] = [];
    const startV6 = (o: Dhcpv6ServerOptions): Promise<never> => {
      v6.push(o);
      return Promise.resolve({ port: 547, close: () => Promise.resolve() } as never);
    };
    const dual = new Map([
      ['eth0', { ...podInterface([]).get('eth0'), ipv6: [{ address: 'fd00:10:244::5', prefixLength: 64 }] }],
    ]) as PodInterfaces;
    const only4 = podInterface([{ address: '10.244.0.5', prefixLength: 24 }]);
    const started = async (podInterfaces: PodInterfaces): Promise<Dhcpv6ServerOptions[]> => {
      v6.length = 0;
      const root = await podRoot('1450\n');
      const dhcp = new GuestDhcp({ root, log: nopLogger, start: r.start, startV6, podInterfaces });
      await dhcp.serve(vmi, domain('52:54:00:00:00:01'));
      await dhcp.serve(vmi, domain('52:54:00:00:00:01'));
      return [...v6];
    };
    expect(await started(only4)).toEqual([]);
    const [first, ...more] = await started(dual);
    expect(more).toEqual([]);
    expect(first?.link).toBe('k6t-eth0');
    expect(first?.config.address).toBe('fd10:0:2::2');
  });

  it('serves nothing to a bridge interface whose Pod interface had no IPv4 address', async () => {
    const r = recorder();
    const podInterfaces = podInterface([]);
    const dhcp = new GuestDhcp({
      root: await podRoot(undefined),
      log: nopLogger,
      start: r.start,
      podInterfaces,
    });
    await dhcp.serve(bridged, domain('aa:bb:cc:dd:ee:ff'));
    expect(r.started).toEqual([]);
  });

  it('refuses a bridge interface whose Pod interface was not there when the launcher started', async () => {
    const r = recorder();
    const dhcp = new GuestDhcp({ root: await podRoot(undefined), log: nopLogger, start: r.start });
    await expect(dhcp.serve(bridged, domain('aa:bb:cc:dd:ee:ff'))).rejects.toThrow(
      'the Pod had no interface eth0 when the launcher started',
    );
  });

  it('serves nothing to a VMI without a masquerade or bridge interface', async () => {
    const r = recorder();
    const dhcp = new GuestDhcp({ root: await podRoot(undefined), log: nopLogger, start: r.start });
    await dhcp.serve(newVmi(), domain());
    expect(r.started).toEqual([]);
  });

  it.each([
    ['the domain has no MAC for the interface', '1450', undefined, 'has no MAC in the defined domain'],
    ['the Pod has no such interface', undefined, '52:54:00:00:00:01', 'the Pod has no interface eth0'],
    ['the MTU file holds no number', 'x', '52:54:00:00:00:01', 'holds no MTU'],
  ])('refuses when %s', async (_, mtu, mac, message) => {
    const r = recorder();
    const dhcp = new GuestDhcp({ root: await podRoot(mtu), log: nopLogger, start: r.start });
    await expect(dhcp.serve(vmi, domain(mac))).rejects.toThrow(message);
    expect(r.started).toEqual([]);
  });
});
