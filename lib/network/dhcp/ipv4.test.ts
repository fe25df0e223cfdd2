import { describe, expect, it } from '@jest/globals';
import { DhcpValueError } from './errors.ts';
import { addressAfter, ipv4Bytes, ipv4Text, prefixMask, subnetAddress } from './ipv4.ts';

describe('IPv4 addresses on the DHCP wire', () => {
  it.each<[string, number[]]>([
    ['10.0.2.2', [10, 0, 2, 2]],
    ['255.255.255.255', [255, 255, 255, 255]],
    ['0.0.0.0', [0, 0, 0, 0]],
  ])('%s is %j and back', (text, octets) => {
    expect([...ipv4Bytes(text, 'f')]).toEqual(octets);
    expect(ipv4Text(Buffer.from(octets))).toBe(text);
  });

  it.each(['10.0.2', '10.0.2.256', 'fd10::2', '', ' 10.0.2.2', '10.0.2.2/24'])('refuses %j', (text) => {
    expect(() => ipv4Bytes(text, 'dns[0]')).toThrow(DhcpValueError);
    expect(() => ipv4Bytes(text, 'dns[0]')).toThrow(/^dns\[0\]: /);
  });

  it('reads four octets at an offset, or nothing when they are not there', () => {
    expect(ipv4Text(Buffer.from([9, 1, 2, 3, 4]), 1)).toBe('1.2.3.4');
    expect(ipv4Text(Buffer.from([1, 2, 3]))).toBeUndefined();
  });

  it.each<[number, number]>([
    [0, 0],
    [8, 0xff000000],
    [24, 0xffffff00],
    [30, 0xfffffffc],
    [32, 0xffffffff],
  ])('the mask of /%i is %i', (length, mask) => {
    expect(prefixMask(length, 'f')).toBe(mask);
  });

  it.each([-1, 33, 1.5, Number.NaN])('refuses the prefix length %p', (length) => {
    expect(() => prefixMask(length, 'f')).toThrow(DhcpValueError);
  });

  it.each<[string, number, string, string]>([
    ['10.0.2.2', 24, '10.0.2.0', '10.0.2.255'],
    ['10.244.1.17', 20, '10.244.0.0', '10.244.15.255'],
    ['192.168.7.9', 32, '192.168.7.9', '192.168.7.9'],
    ['192.168.7.9', 0, '0.0.0.0', '255.255.255.255'],
  ])('%s/%i is in %s, broadcast %s', (address, prefixLength, network, broadcast) => {
    expect(subnetAddress({ address, prefixLength, field: 'f' }, 'network')).toBe(network);
    expect(subnetAddress({ address, prefixLength, field: 'f' }, 'broadcast')).toBe(broadcast);
  });

  it.each<[string, number, string]>([
    ['10.0.2.0', 1, '10.0.2.1'],
    ['10.0.2.255', 1, '10.0.3.0'],
    ['255.255.255.255', 1, '0.0.0.0'],
  ])('%s + %i is %s', (address, n, next) => {
    expect(addressAfter(address, n)).toBe(next);
  });
});
