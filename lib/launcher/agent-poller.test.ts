import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { nopLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { AgentPoller, mergeFacts, type GuestFacts } from './agent-poller.ts';
import { osInfoJson } from './guest-ops.ts';

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
  const last: GuestFacts = { osInfo: { Id: 'a' }, fsFreezeStatus: 'thawed' };
  it.each<[string, GuestFacts, GuestFacts]>([
    ['keeps both on a silent agent', { osInfo: {}, fsFreezeStatus: '' }, last],
    [
      'takes a new freeze status',
      { osInfo: {}, fsFreezeStatus: 'frozen' },
      { osInfo: { Id: 'a' }, fsFreezeStatus: 'frozen' },
    ],
    [
      'takes a new OS',
      { osInfo: { Id: 'b' }, fsFreezeStatus: '' },
      { osInfo: { Id: 'b' }, fsFreezeStatus: 'thawed' },
    ],
  ])('%s', (_n, read, want) => {
    expect(mergeFacts(last, read)).toEqual(want);
  });
});

describe('AgentPoller', () => {
  it('polls while the agent is connected, notes and sends only changes', async () => {
    const clock = new FakeClock();
    let connected = false;
    let answer: GuestFacts = { osInfo: { Id: 'kvts-agent' }, fsFreezeStatus: 'thawed' };
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
    expect(noted.at(-1)).toEqual({ osInfo: { Id: 'kvts-agent' }, fsFreezeStatus: 'frozen' });
    expect(sent).toBe(2);
    poller.stop();
    expect(clock.pendingCount).toBe(0);
  });
});
