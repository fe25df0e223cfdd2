import { describe, expect, it } from '@jest/globals';
import { Dhcpv6ValueError } from './errors.ts';
import {
  decodeOptions,
  dnsServersOption,
  domainListOption,
  duidOption,
  iaidOf,
  iaNaOption,
  ipv6Text,
  linkLayerDuid,
  OPTION,
  type IaNaLease,
} from './options.ts';

const LEASE: IaNaLease = {
  iaid: 0x4b560002,
  address: 'fd10:0:2::2',
  preferredLifetime: 86_313_600,
  validLifetime: 86_313_600,
};

describe('DHCPv6 options', () => {
  it('makes the DUID-LL of a MAC (type 3, Ethernet)', () => {
    expect(linkLayerDuid('02:00:00:00:00:00').toString('hex')).toBe('00030001020000000000');
    expect(linkLayerDuid('12-34-56-78-9A-BC').toString('hex')).toBe('00030001123456789abc');
  });

  it('refuses a MAC that is not one', () => {
    expect(() => linkLayerDuid('02:00:00:00:00')).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID' }),
    );
  });

  it.each([2, 131])('refuses a DUID of %d bytes', (length) => {
    expect(() => duidOption(OPTION.serverId, Buffer.alloc(length, 1))).toThrow(Dhcpv6ValueError);
  });

  it('writes IA_NA with T1 and T2 0 and one IA Address', () => {
    const option = iaNaOption(LEASE);
    expect(option.code).toBe(OPTION.iaNa);
    expect(option.data.toString('hex')).toBe(
      [
        '4b560002 00000000 00000000', // IAID, T1, T2
        '0005 0018', // IA Address, 24 bytes
        'fd100000000200000000000000000002', // fd10:0:2::2
        '05250a80 05250a80', // 999 days preferred and valid
      ]
        .join('')
        .replace(/\s/g, ''),
    );
    const [address] = decodeOptions(option.data.subarray(12), 'IA_NA');
    expect(address && ipv6Text(address.data)).toBe('fd10:0:2::2');
    expect(iaidOf(option.data)).toBe(0x4b560002);
  });

  it('reads no IAID from fewer than four bytes', () => {
    expect(iaidOf(Buffer.from([0, 0, 1]))).toBeUndefined();
  });

  it.each<[string, Partial<IaNaLease>, RegExp]>([
    ['an IPv4 address', { address: '10.0.2.2' }, /^address: /],
    ['a scoped address', { address: 'fe80::2%eth0' }, /^address: /],
    ['a negative IAID', { iaid: -1 }, /^option 3: IAID/],
    ['an IAID over 32 bits', { iaid: 2 ** 32 }, /^option 3: IAID/],
    ['preferred over valid', { preferredLifetime: 2, validLifetime: 1 }, /^option 3: lifetimes/],
    ['a lifetime over 32 bits', { preferredLifetime: 1, validLifetime: 2 ** 32 }, /^option 3: lifetimes/],
    ['a fractional lifetime', { preferredLifetime: 0.5 }, /^option 3: lifetimes/],
  ])('refuses an IA_NA with %s', (_what, change, message) => {
    expect(() => iaNaOption({ ...LEASE, ...change })).toThrow(Dhcpv6ValueError);
    expect(() => iaNaOption({ ...LEASE, ...change })).toThrow(message);
  });

  it('writes DNS servers sixteen octets each, in order', () => {
    const option = dnsServersOption(['fd00:10:96::a', '2001:4860:4860::8888']);
    expect(option.code).toBe(OPTION.dnsServers);
    expect(option.data.toString('hex')).toBe(
      'fd00001000960000000000000000000a' + '20014860486000000000000000008888',
    );
    expect([ipv6Text(option.data), ipv6Text(option.data, 16)]).toEqual([
      'fd00:10:96::a',
      '2001:4860:4860::8888',
    ]);
  });

  it.each<[string, string[]]>([
    ['no address', []],
    ['an IPv4 address', ['10.96.0.10']],
    ['a name', ['dns.local']],
  ])('refuses DNS servers with %s', (_what, addresses) => {
    expect(() => dnsServersOption(addresses)).toThrow(/^option 23: /);
  });

  it('writes the search list as uncompressed labels, a trailing dot changing nothing', () => {
    const option = domainListOption(['ns1.svc.cluster.local', 'cluster.local.']);
    expect(option.code).toBe(OPTION.domainList);
    expect(option.data).toEqual(
      Buffer.concat([
        Buffer.from('\x03ns1\x03svc\x07cluster\x05local\x00', 'latin1'),
        Buffer.from('\x07cluster\x05local\x00', 'latin1'),
      ]),
    );
  });

  it.each<[string, string[]]>([
    ['no domain', []],
    ['a comma', ['foo,com']],
    ['a label starting with a dash', ['-a.com']],
    ['an empty label', ['a..com']],
    ['a label of 64 characters', [`${'a'.repeat(64)}.com`]],
    ['a name of 254 characters', [Array<string>(51).fill('abcd').join('.')]],
    ['the root alone', ['.']],
  ])('refuses a search list with %s', (_what, domains) => {
    expect(() => domainListOption(domains)).toThrow(/^option 24: /);
  });
});
