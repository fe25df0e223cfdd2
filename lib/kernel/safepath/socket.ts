/**
 * Dialling a unix socket that lies in a directory a tenant writes (kubevirt pkg/safepath with
 * pkg/virt-handler/isolation's socket lookup): the socket is opened without following symlinks, checked to be a
 * socket, and connected through `/proc/self/fd/N`, so a symlink planted in its place never relays the caller to
 * another socket on the host. The short `/proc` path also lifts the 107-byte sun_path limit.
 */
import { createConnection, type Socket } from 'node:net';
import { KvError } from '../errors/errors.ts';
import type { Clock } from '../clock.ts';
import { openBeneath } from './safepath.ts';

/**
 * Connects to the socket at `rel` below the trusted `root` within `timeoutMs`; never follows a symlink. The
 * socket comes with a no-op 'error' listener (the handle is closed after the connect, before the caller can add
 * its own): the caller's listener sees every error, and one nobody hears ends in 'close'.
 */
export async function connectBeneath(
  root: string,
  rel: string | readonly string[],
  o: { clock: Clock; timeoutMs: number; allowHalfOpen?: boolean },
): Promise<Socket> {
  const h = await openBeneath(root, rel, ['socket']);
  try {
    return await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ path: h.procPath, allowHalfOpen: o.allowHalfOpen ?? false });
      const timer = o.clock.after(o.timeoutMs, () => {
        s.destroy(new KvError('KV_ERR_TIMEOUT', `timeout after ${o.timeoutMs} ms`));
      });
      s.once('connect', () => {
        timer.cancel();
        s.removeAllListeners('error');
        s.on('error', () => undefined);
        resolve(s);
      });
      s.once('error', (err) => {
        timer.cancel();
        reject(err);
      });
    });
  } finally {
    await h.close();
  }
}
