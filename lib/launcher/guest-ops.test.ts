// GuestOps' probe commands against a fake libvirt connection: the agent commands they send, with which timeout,
// to which domain, and what they refuse.
import { describe, expect, it } from '@jest/globals';
import type { Clock } from '../kernel/clock.ts';
import { nopLogger } from '../kernel/log/log.ts';
import type { DomainRef } from '../libvirt/index.ts';
import { GuestOps } from './guest-ops.ts';
import type { DomainManager } from './manager.ts';

interface Sent {
  cmd: unknown;
  timeout: number;
}

const REF: DomainRef = { name: 'ns_vm', uuid: '00000000-0000-0000-0000-000000000001', id: 1 };

function fakeManager(
  answer: (cmd: { execute: string }) => string,
  defined = true,
): {
  m: DomainManager;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const conn = {
    call: (_proc: unknown, args: { cmd: string; timeout: number }): Promise<{ result: string }> => {
      const cmd = JSON.parse(args.cmd) as { execute: string };
      sent.push({ cmd, timeout: args.timeout });
      return Promise.resolve({ result: answer(cmd) });
    },
  };
  const clock: Clock = {
    now: () => 0,
    after: () => ({ cancel: () => undefined }),
    sleep: () => Promise.resolve(),
  };
  const m = {
    domainName: 'ns_vm',
    conn,
    clock,
    require: () =>
      defined ? Promise.resolve(REF) : Promise.reject(new Error('domain ns_vm does not exist')),
  };
  return { m: m as unknown as DomainManager, sent };
}

describe('GuestOps probes', () => {
  it('pings the agent with the probe timeout, at least 1 s', async () => {
    const { m, sent } = fakeManager(() => '{"return":{}}');
    const g = new GuestOps(m, nopLogger);
    await g.ping('ns_vm', 3);
    await g.ping('ns_vm', 0);
    expect(sent).toEqual([
      { cmd: { execute: 'guest-ping' }, timeout: 3 },
      { cmd: { execute: 'guest-ping' }, timeout: 1 },
    ]);
  });

  it('runs an exec through guest-exec and guest-exec-status', async () => {
    const { m, sent } = fakeManager((cmd) =>
      cmd.execute === 'guest-exec'
        ? '{"return":{"pid":7}}'
        : JSON.stringify({ return: { exited: true, exitcode: 1, 'out-data': 'ZG93bg==' } }),
    );
    const g = new GuestOps(m, nopLogger);
    const r = await g.exec({ domainName: 'ns_vm', command: 'check', args: [], timeoutSeconds: 2 });
    expect(r).toEqual({ exitCode: 1, stdOut: 'down' });
    expect(sent.map((s) => [(s.cmd as { execute: string }).execute, s.timeout])).toEqual([
      ['guest-exec', 2],
      ['guest-exec-status', 2],
    ]);
  });

  it.each([
    ['another domain', 'other_vm', true, "domain other_vm is not this launcher's (ns_vm)"],
    ['no domain yet', 'ns_vm', false, 'domain ns_vm does not exist'],
  ])('refuses %s and sends nothing', async (_what, name, defined, message) => {
    const { m, sent } = fakeManager(() => '{"return":{}}', defined);
    const g = new GuestOps(m, nopLogger);
    await expect(g.ping(name, 1)).rejects.toThrow(message);
    await expect(g.exec({ domainName: name, command: 'x', args: [], timeoutSeconds: 1 })).rejects.toThrow(
      message,
    );
    expect(sent).toEqual([]);
  });
});
