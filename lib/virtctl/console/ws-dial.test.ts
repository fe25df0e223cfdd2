import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { StatusError } from '../../kernel/errors/errors.ts';
import { VirtctlClient } from '../client.ts';
import { RequestFailed } from '../errors/failures.ts';
import { dialSubresource } from './ws-dial.ts';
import { endlessRefusal, type EndlessRefusal } from '../../kernel/testing/endless-refusal.ts';

jest.setTimeout(20_000);

let srv: EndlessRefusal | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('dialSubresource', () => {
  it('reads a refusal body only up to its cap, then fails with the status', async () => {
    srv = await endlessRefusal();
    const client = new VirtctlClient(
      { server: srv.url, qps: 0, burst: 1, userAgent: 'virtctl-ts/test' },
      'default',
    );
    const err = await dialSubresource(client, '/apis/x').then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(err).toBeInstanceOf(RequestFailed);
    expect((err as RequestFailed).cause).toBeInstanceOf(StatusError);
    expect(((err as RequestFailed).cause as StatusError).status.code).toBe(403);
    // The client stopped reading: what the server got out is the cap (64 KiB) plus what socket buffers held.
    expect(srv.written()).toBeLessThan(16 * 1024 * 1024);
  });
});
