import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { freePorts, portsFree } from './ports.ts';

describe('freePorts', () => {
  it('returns distinct bindable ports below the ephemeral range', async () => {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    for (const p of ports) expect(p >= 20_000 && p < 32_000).toBe(true);
    expect(await portsFree(ports)).toBe(true);
  });

  it('skips a port that is taken', async () => {
    const taken = await freePorts(1);
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(taken[0], '127.0.0.1', resolve));
    try {
      expect(await portsFree(taken)).toBe(false);
      const seq = [(taken[0]! - 20_000) / 12_000, (taken[0]! - 20_000) / 12_000, 0.5];
      const ports = await freePorts(1, () => seq.shift() ?? Math.random());
      expect(ports[0]).not.toBe(taken[0]);
    } finally {
      await new Promise((resolve) => srv.close(resolve));
    }
  });
});
