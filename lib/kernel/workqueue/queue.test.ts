import { describe, it, expect } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.ts';
import { WorkQueue } from './queue.ts';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function newQueue(clock = new FakeClock()): WorkQueue {
  return new WorkQueue({ name: 'test', clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000) });
}

/**
 * Runs a script of 'add x' | 'get' | 'done x' | 'shutdown' and returns what each 'get' returned
 * ('-' for undefined) followed by the final len().
 */
async function run(script: string[]): Promise<string[]> {
  const q = newQueue();
  const out: string[] = [];
  for (const step of script) {
    const [op, key = ''] = step.split(' ');
    if (op === 'add') q.add(key);
    if (op === 'done') q.done(key);
    if (op === 'shutdown') q.shutDown();
    if (op === 'get') out.push((await q.get()) ?? '-');
  }
  return [...out, `len=${q.len()}`];
}

describe('WorkQueue add/get/done', () => {
  it.each([
    {
      case: 'FIFO order',
      script: ['add a', 'add b', 'add c', 'get', 'get', 'get'],
      want: ['a', 'b', 'c', 'len=0'],
    },
    {
      case: 'dedups waiting keys',
      script: ['add a', 'add b', 'add a', 'get', 'get'],
      want: ['a', 'b', 'len=0'],
    },
    {
      case: 'holds a re-added key while processing',
      script: ['add a', 'get', 'add a'],
      want: ['a', 'len=0'],
    },
    {
      case: 'requeues it on done',
      script: ['add a', 'get', 'add a', 'done a', 'get'],
      want: ['a', 'a', 'len=0'],
    },
    { case: 'done without re-add drops', script: ['add a', 'get', 'done a'], want: ['a', 'len=0'] },
    { case: 'done of an unknown key is a no-op', script: ['add a', 'done a', 'done b'], want: ['len=1'] },
    { case: 'add after shutdown is ignored', script: ['shutdown', 'add a', 'get'], want: ['-', 'len=0'] },
    {
      case: 'drains queued keys after shutdown',
      script: ['add a', 'add b', 'shutdown', 'get', 'get', 'get'],
      want: ['a', 'b', '-', 'len=0'],
    },
  ])('$case', async ({ script, want }) => {
    expect(await run(script)).toEqual(want);
  });

  it('get waits for an add, and one key goes to one waiter only', async () => {
    const q = newQueue();
    const got: (string | undefined)[] = [];
    const w1 = q.get().then((k) => got.push(k));
    const w2 = q.get().then((k) => got.push(k));
    q.add('a');
    await flush();
    expect(got).toEqual(['a']);
    q.add('a'); // processing: held back
    await flush();
    expect(got).toEqual(['a']);
    q.done('a');
    await Promise.all([w1, w2]);
    expect(got).toEqual(['a', 'a']);
  });

  it('shutDown resolves waiting get() with undefined', async () => {
    const q = newQueue();
    const p = q.get();
    q.shutDown();
    expect(await p).toBeUndefined();
    expect(q.isShuttingDown()).toBe(true);
  });
});

describe('WorkQueue.active', () => {
  it('counts waiting and in-process keys, not delayed ones', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('later', 100);
    expect(q.active()).toBe(0);
    q.add('a');
    q.add('b');
    const a = await q.get();
    expect([q.len(), q.active()]).toEqual([1, 2]);
    q.done(a ?? '');
    expect(q.active()).toBe(1);
  });
});

describe('WorkQueue delayed and rate-limited adds', () => {
  it('addAfter adds when the clock reaches the delay', () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 100);
    clock.advance(99);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it.each([
    { case: 'earlier delay wins', first: 100, second: 50, addedAt: 50 },
    { case: 'later delay is ignored', first: 50, second: 100, addedAt: 50 },
    { case: 'zero delay adds now', first: 100, second: 0, addedAt: 0 },
  ])('$case', ({ first, second, addedAt }) => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', first);
    q.addAfter('a', second);
    clock.advance(addedAt);
    expect(q.len()).toBe(1);
    clock.advance(1000);
    expect(q.len()).toBe(1); // deduplicated: the other timer does not add it twice
  });

  it('shutdown cancels delayed adds', () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.pendingCount).toBe(0);
    clock.advance(100);
    expect(q.len()).toBe(0);
  });

  it('addRateLimited backs off per key; forget resets', () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addRateLimited('a'); // 5 ms
    q.addRateLimited('a'); // 10 ms, but the pending 5 ms add wins
    expect(q.numRequeues('a')).toBe(2);
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });
});

describe('WorkQueue shutDownWithDrain', () => {
  it('resolves at once when nothing is processing', async () => {
    await expect(newQueue().shutDownWithDrain()).resolves.toBeUndefined();
  });

  it('waits until every handed-out key is done', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await flush();
    expect(drained).toBe(false);
    q.done('b');
    await p;
    expect(drained).toBe(true);
  });

  it('a plain shutDown releases a pending drain', async () => {
    const q = newQueue();
    q.add('a');
    await q.get();
    const p = q.shutDownWithDrain();
    q.shutDown();
    await expect(p).resolves.toBeUndefined();
  });
});
