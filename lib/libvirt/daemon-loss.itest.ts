/**
 * What the client does when the libvirt daemon stops answering (frozen: keepalive notices) or dies (the
 * socket closes): every call in flight is rejected with KV_ERR_TRANSPORT. Uses its own private daemon.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startPrivateLibvirt, type PrivateLibvirt } from '../../testenv/libvirt/daemon.ts';
import { createLogger } from '../kernel/log/log.ts';
import { LibvirtConnection, getLibVersion, getVersion } from './index.ts';

const log = createLogger({ component: 'libvirt-itest' });
let daemon: PrivateLibvirt;

beforeAll(async () => {
  daemon = await startPrivateLibvirt({ log });
}, 60_000);

afterAll(async () => {
  try {
    process.kill(daemon.libvirtdPid, 'SIGCONT');
  } catch {
    // already gone (the second test kills it)
  }
  await daemon.stop();
}, 60_000);

const open = (keepAlive: { intervalMs: number; count: number } | false): Promise<LibvirtConnection> =>
  LibvirtConnection.open({ socketPath: daemon.socketPath, uri: daemon.uri, log, keepAlive });

describe('a daemon that stops answering', () => {
  it('is declared dead by keepalive: the call in flight fails, the connection closes', async () => {
    const conn = await open({ intervalMs: 200, count: 2 });
    expect((await getLibVersion(conn)).major).toBeGreaterThanOrEqual(9);
    const closed = new Promise<Error | undefined>((resolve) => conn.onClose(resolve));
    process.kill(daemon.libvirtdPid, 'SIGSTOP');
    try {
      await expect(getVersion(conn)).rejects.toMatchObject({
        code: 'KV_ERR_TRANSPORT',
        message: /no keepalive answer/,
      });
      expect(await closed).toBeInstanceOf(Error);
      expect(conn.isOpen).toBe(false);
    } finally {
      process.kill(daemon.libvirtdPid, 'SIGCONT');
    }
    const again = await open(false);
    expect((await getLibVersion(again)).major).toBeGreaterThanOrEqual(9);
    await again.close();
  });
});

describe('a daemon that dies', () => {
  it('rejects the calls in flight with KV_ERR_TRANSPORT, and every later call', async () => {
    const conn = await open(false);
    process.kill(daemon.libvirtdPid, 'SIGSTOP');
    const inFlight = [getVersion(conn), getLibVersion(conn)];
    process.kill(daemon.libvirtdPid, 'SIGKILL');
    for (const call of inFlight) {
      await expect(call).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT', message: /connection lost/ });
    }
    await expect(getVersion(conn)).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT', message: /closed/ });
  });
});
