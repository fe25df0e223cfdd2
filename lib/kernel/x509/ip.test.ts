import { describe, expect, it } from '@jest/globals';
import { canonicalIp, ipOctets } from './ip.ts';

describe('ipOctets', () => {
  it.each<[string, string]>([
    ['127.0.0.1', '7f000001'],
    ['10.1.255.0', '0a01ff00'],
    ['::', '0'.repeat(32)],
    ['::1', `${'0'.repeat(30)}01`],
    ['fe80::1:2', `fe80${'0'.repeat(20)}00010002`],
    ['2001:db8:0:0:1:0:0:1', '20010db8000000000001000000000001'],
    ['2001:DB8::', `20010db8${'0'.repeat(24)}`],
    ['::ffff:192.0.2.1', `${'0'.repeat(20)}ffffc0000201`],
    ['1:2:3:4:5:6:1.2.3.4', '00010002000300040005000601020304'],
  ])('%s → %s', (address, octets) => {
    expect(ipOctets(address).toString('hex')).toBe(octets);
  });

  it.each(['', 'localhost', '1.2.3', '256.0.0.1', '1::2::3', 'fe80::1%eth0'])('refuses %j', (address) => {
    expect(() => ipOctets(address)).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});

describe('canonicalIp', () => {
  it.each<[string, string]>([
    ['10.0.0.1', '10.0.0.1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['FE80:0:0:0:0:0:1:2', 'fe80::1:2'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ])('%s → %s', (address, canonical) => {
    expect(canonicalIp(address)).toBe(canonical);
  });
});
