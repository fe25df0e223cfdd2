import { describe, expect, it } from '@jest/globals';
import type { CommandRunner } from './command.ts';
import { applyPlan, listLinks, randomBridgeMac, readPodInterface } from './netns-exec.ts';

/** A runner that records and must never be reached: every case here is refused before any command. */
function recorder(): { run: CommandRunner; calls: (readonly string[])[] } {
  const calls: (readonly string[])[] = [];
  return {
    calls,
    run: (argv) => {
      calls.push(argv);
      return Promise.resolve('[]');
    },
  };
}

describe('the namespace a command runs in', () => {
  it.each<[string, string]>([
    ['our own namespace', `/proc/${process.pid}/ns/net`],
    ['a path of another form', '/proc/self/ns/net'],
    ['a relative path', 'run/netns/x'],
    ['a name with a slash', '/run/netns/../netns/x'],
    ['a namespace that is not there', '/run/netns/kvts-nettest-missing-namespace'],
  ])('refuses %s', async (_case, nsPath) => {
    const r = recorder();
    await expect(applyPlan(nsPath, [{ kind: 'set-up', link: 'eth0' }], { run: r.run })).rejects.toMatchObject(
      {
        code: 'KV_ERR_INVALID',
      },
    );
    await expect(readPodInterface(nsPath, 'eth0', { run: r.run })).rejects.toMatchObject({
      code: 'KV_ERR_INVALID',
    });
    await expect(listLinks(nsPath, { run: r.run })).rejects.toMatchObject({ code: 'KV_ERR_INVALID' });
    expect(r.calls).toEqual([]);
  });
});

describe('randomBridgeMac', () => {
  it('is a locally administered unicast MAC', () => {
    expect(randomBridgeMac()).toMatch(/^[0-9a-f][26ae](:[0-9a-f]{2}){5}$/);
  });
});
