import { describe, expect, it } from '@jest/globals';
import { nopLogger } from '../../kernel/log/log.ts';
import type { CommandRunner } from '../../network/setup/command.ts';
import { readPodInterfaces } from './pod-interfaces.ts';

const ADDR = JSON.stringify([
  {
    ifname: 'lo',
    mtu: 65536,
    address: '00:00:00:00:00:00',
    addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8 }],
  },
  {
    ifname: 'eth0',
    mtu: 1450,
    address: 'aa:bb:cc:dd:ee:ff',
    addr_info: [
      { family: 'inet', local: '10.244.0.5', prefixlen: 24 },
      { family: 'inet6', local: 'fe80::a8bb:ccff:fedd:eeff', prefixlen: 64 },
    ],
  },
]);
const ROUTES = JSON.stringify([{ dst: 'default', gateway: '10.244.0.1' }, { dst: '10.244.0.0/24' }]);

describe('readPodInterfaces', () => {
  it('reads every interface but the loopback with its addresses and routes', async () => {
    const calls: string[] = [];
    const run: CommandRunner = (argv) => {
      calls.push(argv.join(' '));
      return Promise.resolve(argv.includes('route') ? ROUTES : ADDR);
    };
    const got = await readPodInterfaces(nopLogger, run);
    expect([...got.keys()]).toEqual(['eth0']);
    expect(got.get('eth0')).toEqual({
      name: 'eth0',
      mtu: 1450,
      mac: 'aa:bb:cc:dd:ee:ff',
      ipv4: [{ address: '10.244.0.5', prefixLength: 24 }],
      ipv6: [{ address: 'fe80::a8bb:ccff:fedd:eeff', prefixLength: 64 }],
      routes: [{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }, { destination: '10.244.0.0/24' }],
    });
    expect(calls).toEqual(['ip -j addr show', 'ip -j -4 route show dev eth0']);
  });

  it('is empty, not a failure, when ip cannot run or answers nonsense', async () => {
    await expect(readPodInterfaces(nopLogger, () => Promise.reject(new Error('no ip')))).resolves.toEqual(
      new Map(),
    );
    await expect(readPodInterfaces(nopLogger, () => Promise.resolve('{'))).resolves.toEqual(new Map());
  });
});
