import { describe, expect, it } from '@jest/globals';
import { checkConfig, configOptions } from './config-options.ts';
import type { DhcpConfig } from './config.ts';
import { DhcpValueError } from './errors.ts';
import { newDhcpConfig, type ConfigChange } from './testing/messages.ts';

const label = (s: string): number[] => [s.length, ...Buffer.from(s, 'ascii')];
const name = (d: string): number[] => [...d.split('.').flatMap(label), 0];
const text = (s: string): number[] => [...Buffer.from(s, 'utf8')];

/** The options as [code, bytes] pairs, in the order they are sent. */
const sent = (config: DhcpConfig): [number, number[]][] =>
  configOptions(config).map((o) => [o.code, [...o.data]]);

describe('the options sent for a configuration', () => {
  it('sends every option of a masquerade interface in code order', () => {
    const search = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
    expect(sent(newDhcpConfig())).toEqual([
      [1, [255, 255, 255, 0]],
      [3, [10, 0, 2, 1]],
      [6, [10, 96, 0, 10]],
      [12, text('vmi-a')],
      [15, text('default.svc.cluster.local')],
      [26, [0x05, 0xdc]],
      [119, search.flatMap(name)],
    ]);
  });

  it('puts the subdomain first in the search list and uses it as the domain name', () => {
    const options = new Map(sent(newDhcpConfig({ subdomain: 'sub' })));
    expect(options.get(15)).toEqual(text('sub.default.svc.cluster.local'));
    expect(options.get(119)?.slice(0, 31)).toEqual(name('sub.default.svc.cluster.local'));
  });

  it('sends routes, and the VMI options KubeVirt knows, in code order', () => {
    const config = newDhcpConfig({
      routes: [{ destination: '0.0.0.0/0', gateway: '10.0.2.1' }, { destination: '10.0.2.0/24' }],
      dhcpOptions: {
        bootFileName: 'config',
        tftpServerName: 'tftp.kubevirt.io',
        ntpServers: ['192.168.2.2', '192.168.2.3'],
        privateOptions: [
          { option: 250, value: 'second' },
          { option: 240, value: 'first' },
          { option: 240, value: 'last wins' },
          { option: 200, value: 'not private' },
          { option: 255, value: 'not private' },
        ],
      },
    });
    const codes = sent(config).map(([code]) => code);
    expect(codes).toEqual([1, 3, 6, 12, 15, 26, 42, 66, 67, 119, 121, 240, 250]);
    const options = new Map(sent(config));
    expect(options.get(42)).toEqual([192, 168, 2, 2, 192, 168, 2, 3]);
    expect(options.get(66)).toEqual(text('tftp.kubevirt.io'));
    expect(options.get(67)).toEqual(text('config'));
    expect(options.get(121)).toEqual([24, 10, 0, 2, 0, 0, 0, 0, 0, 10, 0, 2, 1]);
    expect(options.get(240)).toEqual(text('last wins'));
  });

  it.each<[string, ConfigChange, number[]]>([
    ['no gateway: no router', { gateway: undefined }, [1, 6, 12, 15, 26, 119]],
    ['no DNS servers', { dns: [] }, [1, 3, 12, 15, 26, 119]],
    ['no search domains: no domain name either', { searchDomains: [] }, [1, 3, 6, 12, 26]],
    ['no hostname', { hostname: '' }, [1, 3, 6, 15, 26, 119]],
    ['an empty route list', { routes: [] }, [1, 3, 6, 12, 15, 26, 119]],
    [
      'empty VMI options',
      { dhcpOptions: { tftpServerName: '', bootFileName: '', ntpServers: [] } },
      [1, 3, 6, 12, 15, 26, 119],
    ],
  ])('leaves options out with %s', (_what, change, codes) => {
    expect(sent(newDhcpConfig(change)).map(([code]) => code)).toEqual(codes);
  });

  it('passes a whole configuration', () => {
    expect(() => {
      checkConfig(newDhcpConfig({ clientMac: '02-00-00-0A-00-02' }));
    }).not.toThrow();
  });

  it.each<[string, ConfigChange, string]>([
    ['a bad MAC', { clientMac: '02:00:00:0a:00' }, 'clientMac'],
    ['an IPv6 client address', { clientIp: 'fd10:0:2::2' }, 'clientIp'],
    ['a bad server address', { serverIp: '10.0.2' }, 'serverIp'],
    ['a bad broadcast address', { broadcastAddress: '' }, 'broadcastAddress'],
    ['a lease past 32 bits', { leaseSeconds: 2 ** 32 }, 'option 51'],
    ['a bad gateway', { gateway: 'gw' }, 'option 3'],
    ['an IPv6 DNS server', { dns: ['fd00::10'] }, 'option 6'],
    ['a tiny MTU', { mtu: 0 }, 'option 26'],
    ['a prefix length of 33', { prefixLength: 33 }, 'option 1'],
    ['a bad search domain', { searchDomains: ['foo,com'] }, 'option 119'],
    ['a bad route', { routes: [{ destination: '10.0.0.0/8', gateway: 'x' }] }, 'option 121'],
    ['an NTP server name', { dhcpOptions: { ntpServers: ['pool.ntp.org'] } }, 'option 42'],
  ])('refuses %s', (_what, change, field) => {
    const attempt = (): void => {
      checkConfig(newDhcpConfig(change));
    };
    expect(attempt).toThrow(DhcpValueError);
    expect(attempt).toThrow(`${field}: `);
  });
});
