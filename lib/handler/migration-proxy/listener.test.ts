import { PassThrough, type Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { nopLogger } from '../../kernel/log/log.ts';
import { MAX_CONNECTIONS, Tunnels } from './listener.ts';

const conn = (): Socket => new PassThrough() as unknown as Socket;

describe('Tunnels', () => {
  it(`relays at most ${MAX_CONNECTIONS} connections and refuses the next until one closes`, async () => {
    let dials = 0;
    const far: Duplex[] = [];
    const t = new Tunnels({
      dial: () => {
        dials++;
        const d = new PassThrough();
        far.push(d);
        return Promise.resolve(d);
      },
      log: nopLogger,
    });
    const accepted = Array.from({ length: MAX_CONNECTIONS }, conn);
    for (const c of accepted) t.accept(c);
    const extra = conn();
    t.accept(extra);
    await new Promise((r) => setImmediate(r));
    expect(dials).toBe(MAX_CONNECTIONS);
    expect(extra.destroyed).toBe(true);
    expect(accepted.some((c) => c.destroyed)).toBe(false);
    accepted[0]?.destroy();
    await new Promise((r) => setImmediate(r));
    const again = conn();
    t.accept(again);
    await new Promise((r) => setImmediate(r));
    expect(again.destroyed).toBe(false);
    expect(dials).toBe(MAX_CONNECTIONS + 1);
    t.destroyAll();
  });

  it('dials one far end at a time, in the order the connections came; a failed dial does not hold the next', async () => {
    const started: number[] = [];
    const pending: ((d: Duplex) => void)[] = [];
    const t = new Tunnels({
      dial: () => {
        const i = started.length;
        started.push(i);
        if (i === 1) return Promise.reject(new Error('refused'));
        return new Promise<Duplex>((resolve) => pending.push(resolve));
      },
      log: nopLogger,
    });
    const accepted = [conn(), conn(), conn()];
    for (const c of accepted) t.accept(c);
    const settle = (): Promise<unknown> => new Promise((r) => setImmediate(r));
    await settle();
    // The second waits for the first, however long its handshake takes.
    expect(started).toEqual([0]);
    pending[0]?.(new PassThrough());
    await settle();
    expect(started).toEqual([0, 1, 2]);
    expect(accepted.map((c) => c.destroyed)).toEqual([false, true, false]);
    t.destroyAll();
  });

  it(`holds at most ${MAX_CONNECTIONS} raw connections in their handshake`, () => {
    const t = new Tunnels({ dial: () => Promise.reject(new Error('unused')), log: nopLogger });
    const raw = Array.from({ length: MAX_CONNECTIONS + 1 }, conn);
    for (const r of raw) t.acceptRaw(r);
    expect(raw.filter((r) => r.destroyed)).toHaveLength(1);
    expect(raw.at(-1)?.destroyed).toBe(true);
    t.destroyAll();
  });
});
