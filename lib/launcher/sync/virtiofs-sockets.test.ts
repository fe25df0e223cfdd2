import { describe, expect, it } from '@jest/globals';
import type { DomainSpec } from '../converter/index.ts';
import { waitForVirtiofsSockets } from './virtiofs-sockets.ts';

function domainWith(targets: string[]): DomainSpec {
  const filesystems = targets.map((t) => ({ socket: `/s/${t}.sock`, target: t, queue: 1024 }));
  return { devices: { filesystems } } as unknown as DomainSpec;
}

/** Sockets that appear after the given number of polls; counts the delays. */
function world(appearAfter: Record<string, number>): {
  exists: (f: string) => boolean;
  delay: () => Promise<void>;
  polls: () => number;
} {
  let polls = 0;
  return {
    exists: (f) => {
      const n = appearAfter[f];
      return n !== undefined && polls >= n;
    },
    delay: () => {
      polls++;
      return Promise.resolve();
    },
    polls: () => polls,
  };
}

describe('waitForVirtiofsSockets', () => {
  it('returns at once without filesystems or when every socket is there', async () => {
    const w = world({ '/s/a.sock': 0 });
    await waitForVirtiofsSockets(domainWith([]), { timeoutMs: 1000, intervalMs: 100, ...w });
    await waitForVirtiofsSockets(domainWith(['a']), { timeoutMs: 1000, intervalMs: 100, ...w });
    expect(w.polls()).toBe(0);
  });

  it('waits until the last socket appears', async () => {
    const w = world({ '/s/a.sock': 2, '/s/b.sock': 5 });
    await waitForVirtiofsSockets(domainWith(['a', 'b']), { timeoutMs: 1000, intervalMs: 100, ...w });
    expect(w.polls()).toBe(5);
  });

  it('names the filesystem whose socket never came', async () => {
    const w = world({ '/s/a.sock': 1 });
    await expect(
      waitForVirtiofsSockets(domainWith(['a', 'b']), { timeoutMs: 1000, intervalMs: 100, ...w }),
    ).rejects.toMatchObject({
      code: 'KV_ERR_TIMEOUT',
      message: expect.stringContaining('filesystem b') as unknown,
    });
    expect(w.polls()).toBe(10);
  });
});
