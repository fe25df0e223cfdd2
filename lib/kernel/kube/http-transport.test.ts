import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { StatusError } from '../errors/errors.ts';
import { HttpKubeClient } from './client.ts';
import { endlessRefusal, type EndlessRefusal } from '../testing/endless-refusal.ts';

jest.setTimeout(20_000);

let srv: EndlessRefusal | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('HttpTransport: an error answer without end', () => {
  it('reads its body up to the cap, then fails with the Status it began with', async () => {
    srv = await endlessRefusal();
    const client = new HttpKubeClient({ server: srv.url, qps: 0, burst: 1, userAgent: 'kv-test/1' });
    const err = await client.request({ method: 'GET', path: '/api/v1/nodes' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.destroy();
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 403, message: 'no' });
    // The client stopped reading: the server got out the cap (64 KiB) plus what socket buffers held.
    expect(srv.written()).toBeLessThan(16 * 1024 * 1024);
  });
});
