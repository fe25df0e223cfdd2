import { describe, expect, it } from '@jest/globals';
import { parseListenAddress } from './listen-address.ts';

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
