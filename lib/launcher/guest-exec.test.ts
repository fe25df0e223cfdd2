import { describe, expect, it } from '@jest/globals';
import type { Clock } from '../kernel/clock.ts';
import { guestExec, type AgentCall } from './guest-exec.ts';

/** A clock whose sleeps pass at once, moving its time on: the polling is seen in the calls and the time. */
function steppingClock(): Clock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    after: () => ({ cancel: () => undefined }),
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
  };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An agent answering guest-exec with pid 42, then each guest-exec-status with the next of `statuses`. */
function scriptedAgent(statuses: object[]): AgentCall & { sent: object[] } {
  const sent: object[] = [];
  let i = 0;
  const agent = (cmd: object): Promise<string | null> => {
    sent.push(cmd);
    if ((cmd as { execute: string }).execute === 'guest-exec')
      return Promise.resolve('{"return":{"pid":42}}');
    const next = statuses[Math.min(i++, statuses.length - 1)];
    return Promise.resolve(JSON.stringify({ return: next }));
  };
  return Object.assign(agent, { sent });
}

const running = { exited: false };

describe('guestExec', () => {
  it('sends guest-exec with the output captured, then polls guest-exec-status by the pid', async () => {
    const agent = scriptedAgent([running, { exited: true, exitcode: 0, 'out-data': b64('ok\n') }]);
    const clock = steppingClock();
    const r = await guestExec(agent, clock, {
      command: '/bin/check',
      args: ['a "quoted" arg'],
      timeoutSeconds: 2,
    });
    expect(r).toEqual({ exitCode: 0, stdOut: 'ok\n' });
    expect(agent.sent).toEqual([
      {
        execute: 'guest-exec',
        arguments: { path: '/bin/check', arg: ['a "quoted" arg'], 'capture-output': true },
      },
      { execute: 'guest-exec-status', arguments: { pid: 42 } },
      { execute: 'guest-exec-status', arguments: { pid: 42 } },
    ]);
    expect(clock.slept).toEqual([200]);
  });

  it.each([
    ['a non-zero exit code', { exited: true, exitcode: 3 }, 3],
    ['a signal: 128 + the signal', { exited: true, signal: 9 }, 137],
    ['no exit code at all', { exited: true }, 0],
  ])('passes on %s', async (_what, status, code) => {
    const r = await guestExec(scriptedAgent([status]), steppingClock(), {
      command: 'x',
      args: [],
      timeoutSeconds: 1,
    });
    expect(r.exitCode).toBe(code);
  });

  it('gives up once the timeout has passed, polling every tenth of it', async () => {
    const clock = steppingClock();
    const p = guestExec(scriptedAgent([running]), clock, {
      command: 'sleep',
      args: ['60'],
      timeoutSeconds: 1,
    });
    await expect(p).rejects.toMatchObject({
      code: 'KV_ERR_TIMEOUT',
      message: 'sleep (guest pid 42) did not exit within 1s',
    });
    expect(clock.slept).toHaveLength(11);
    expect(new Set(clock.slept)).toEqual(new Set([100]));
  });

  it('takes a timeout below 1 s as 1 s', async () => {
    const clock = steppingClock();
    await expect(
      guestExec(scriptedAgent([running]), clock, { command: 'x', args: [], timeoutSeconds: 0 }),
    ).rejects.toMatchObject({ code: 'KV_ERR_TIMEOUT' });
    expect(clock.now()).toBe(1100);
  });

  it.each([
    ['no pid', '{"return":{}}', 'guest-exec gave no process id for x'],
    ['pid 0', '{"return":{"pid":0}}', 'guest-exec gave no process id for x'],
    ['not JSON', 'nope', 'guest-exec: the guest agent answered no JSON'],
    ['no answer', null, "guest-exec: the guest agent's answer has no return object"],
  ])('refuses a guest-exec answer with %s', async (_what, answer, message) => {
    const agent: AgentCall = () => Promise.resolve(answer);
    await expect(
      guestExec(agent, steppingClock(), { command: 'x', args: [], timeoutSeconds: 1 }),
    ).rejects.toThrow(message);
  });

  it('passes on the agent failing', async () => {
    const agent: AgentCall = () => Promise.reject(new Error('QEMU guest agent is not connected'));
    await expect(
      guestExec(agent, steppingClock(), { command: 'x', args: [], timeoutSeconds: 1 }),
    ).rejects.toThrow('QEMU guest agent is not connected');
  });

  it('stops polling when the caller goes away', async () => {
    const ac = new AbortController();
    ac.abort(new Error('call cancelled by the client'));
    const clock: Clock = {
      ...steppingClock(),
      sleep: (_ms, signal) => Promise.reject(signal?.reason as Error),
    };
    await expect(
      guestExec(scriptedAgent([running]), clock, { command: 'x', args: [], timeoutSeconds: 1 }, ac.signal),
    ).rejects.toThrow('call cancelled by the client');
  });
});
