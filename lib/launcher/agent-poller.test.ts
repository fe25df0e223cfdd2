import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { nopLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { AgentPoller, mergeFacts, type GuestFacts } from './agent-poller.ts';
import { interfacesJson, osInfoJson } from './guest-ops.ts';

describe('osInfoJson (guest-get-osinfo)', () => {
  it('maps qemu-ga names and skips what is not a string', () => {
    expect(
      osInfoJson({
        name: 'Debian',
        id: 'debian',
        'version-id': '12',
        'kernel-release': '6.1',
        machine: 'x86_64',
        x: 1,
        version: 3,
      }),
    ).toEqual({ Name: 'Debian', Id: 'debian', VersionId: '12', KernelRelease: '6.1', Machine: 'x86_64' });
    expect(osInfoJson(undefined)).toEqual({});
  });
});

describe('mergeFacts', () => {
  const eth0 = { Mac: '52:54:00:00:00:01', Ip: '10.0.2.2', IPs: ['10.0.2.2'], InterfaceName: 'eth0' };
  const last: GuestFacts = { osInfo: { Id: 'a' }, fsFreezeStatus: 'thawed', interfaces: [eth0] };
  const silent: GuestFacts = { osInfo: {}, fsFreezeStatus: '', interfaces: [] };
  it.each<[string, GuestFacts, GuestFacts]>([
    ['keeps all on a silent agent', silent, last],
    [
      'takes a new freeze status',
      { ...silent, fsFreezeStatus: 'frozen' },
      { ...last, fsFreezeStatus: 'frozen' },
    ],
    ['takes a new OS', { ...silent, osInfo: { Id: 'b' } }, { ...last, osInfo: { Id: 'b' } }],
    [
      'takes new interfaces',
      { ...silent, interfaces: [{ ...eth0, IPs: [], Ip: '' }] },
      { ...last, interfaces: [{ ...eth0, IPs: [], Ip: '' }] },
    ],
  ])('%s', (_n, read, want) => {
    expect(mergeFacts(last, read)).toEqual(want);
  });
});

describe('interfacesJson (guest-network-get-interfaces)', () => {
  it('takes every interface but loopback with a MAC, its addresses without prefixes', () => {
    expect(
      interfacesJson([
        {
          name: 'lo',
          'hardware-address': '00:00:00:00:00:00',
          'ip-addresses': [{ 'ip-address': '127.0.0.1' }],
        },
        {
          name: 'eth0',
          'hardware-address': '52:54:00:AB:CD:EF',
          'ip-addresses': [
            { 'ip-address-type': 'ipv4', 'ip-address': '10.0.2.2', prefix: 24 },
            { 'ip-address-type': 'ipv6', 'ip-address': 'fe80::5054:ff:feab:cdef', prefix: 64 },
          ],
        },
        { name: 'sit0' },
        { name: 'eth1', 'hardware-address': '52:54:00:00:00:02' },
        'junk',
      ]),
    ).toEqual([
      {
        Mac: '52:54:00:ab:cd:ef',
        Ip: '10.0.2.2',
        IPs: ['10.0.2.2', 'fe80::5054:ff:feab:cdef'],
        InterfaceName: 'eth0',
      },
      { Mac: '52:54:00:00:00:02', Ip: '', IPs: [], InterfaceName: 'eth1' },
    ]);
    expect(interfacesJson(undefined)).toEqual([]);
  });
});

describe('AgentPoller', () => {
  it('polls while the agent is connected, notes and sends only changes', async () => {
    const clock = new FakeClock();
    let connected = false;
    let answer: GuestFacts = { osInfo: { Id: 'kvts-agent' }, fsFreezeStatus: 'thawed', interfaces: [] };
    const noted: GuestFacts[] = [];
    let reads = 0;
    let sent = 0;
    const poller = new AgentPoller({
      agentConnected: () => connected,
      read: () => {
        reads++;
        return Promise.resolve(answer);
      },
      note: (f) => noted.push(f),
      notify: () => sent++,
      clock,
      log: nopLogger,
      intervalMs: 1000,
    });
    poller.start();
    const tick = async (): Promise<void> => {
      const before = clock.pendingCount;
      clock.advance(1000);
      await waitFor(() => clock.pendingCount >= before, 'the next poll scheduled');
    };
    await tick();
    expect([reads, sent]).toEqual([0, 0]);
    connected = true;
    await tick();
    expect(noted).toEqual([answer]);
    await tick();
    expect([reads, sent]).toEqual([2, 1]);
    answer = { ...answer, fsFreezeStatus: 'frozen' };
    await tick();
    expect(noted.at(-1)).toEqual({ osInfo: { Id: 'kvts-agent' }, fsFreezeStatus: 'frozen', interfaces: [] });
    expect(sent).toBe(2);
    poller.stop();
    expect(clock.pendingCount).toBe(0);
  });
});
