import { describe, expect, it } from '@jest/globals';
import { handlerAddress, type NodeAddresses } from './locate.ts';

const node = (...addresses: [string, string][]): NodeAddresses => ({
  metadata: { name: 'n1' },
  status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
});

describe('handlerAddress', () => {
  it.each<[string, NodeAddresses, unknown]>([
    [
      'InternalIP first',
      node(['Hostname', 'n1'], ['ExternalIP', '203.0.113.5'], ['InternalIP', '10.0.0.5']),
      { host: '10.0.0.5', port: 4101 },
    ],
    [
      'ExternalIP without an InternalIP',
      node(['Hostname', 'n1'], ['ExternalIP', '203.0.113.5']),
      { host: '203.0.113.5', port: 4101 },
    ],
    [
      'an empty InternalIP is skipped',
      node(['InternalIP', ''], ['ExternalIP', '203.0.113.5']),
      { host: '203.0.113.5', port: 4101 },
    ],
    ['IPv6', node(['InternalIP', 'fd00::5']), { host: 'fd00::5', port: 4101 }],
    [
      'only a hostname',
      node(['Hostname', 'n1']),
      { message: 'node n1 has no InternalIP or ExternalIP address to reach its handler' },
    ],
    [
      'no status',
      { metadata: { name: 'n2' } },
      { message: 'node n2 has no InternalIP or ExternalIP address to reach its handler' },
    ],
  ])('%s', (_name, n, want) => {
    expect(handlerAddress(n, 4101)).toEqual(want);
  });
});
