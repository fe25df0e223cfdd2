import { describe, expect, it } from '@jest/globals';
import { isLoopback, parseListenAddress } from './listen-address.ts';

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:23915', '127.0.0.1', 23915],
    [':24192', undefined, 24192],
    ['0.0.0.0:0', '0.0.0.0', 0],
    ['[::1]:9090', '::1', 9090],
    ['localhost:80', 'localhost', 80],
  ])('%s', (addr, host, port) => {
    expect(parseListenAddress(addr)).toEqual({ host, port });
  });

  it.each(['23915', '127.0.0.1', '127.0.0.1:', 'host:99999', 'host:-1', 'host:1.5', '::1:80'])(
    'rejects %s',
    (addr) => {
      expect(() => parseListenAddress(addr)).toThrow(/listen address/);
    },
  );
});

describe('isLoopback', () => {
  it.each<[string, boolean]>([
    ['127.0.0.1:23915', true],
    ['127.10.20.30:1', true],
    ['127.255.255.255:1', true],
    ['[::1]:1', true],
    ['[0:0:0:0:0:0:0:1]:1', true],
    ['[::ffff:127.0.0.1]:1', true],
    ['localhost:1', true],
    ['LocalHost:1', true],
    [':23915', false],
    ['0.0.0.0:0', false],
    ['[::]:0', false],
    ['128.0.0.1:1', false],
    ['10.0.0.5:1', false],
    ['[::2]:1', false],
    ['[::ffff:10.0.0.1]:1', false],
    ['localhost.example.com:1', false],
    ['my-pod:1', false],
    ['127.1:1', false],
  ])('%s → %s', (addr, want) => {
    expect(isLoopback(parseListenAddress(addr))).toBe(want);
  });
});
