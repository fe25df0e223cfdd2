/**
 * Two connections joined into one tunnel (kubevirt migration-proxy handleConnection's two io.Copy, tag v1.6.2),
 * with the half-close passed on: when one side ends its sending, the other side's sending is ended and the
 * opposite direction keeps flowing until it ends too. An error or an abrupt close on either side destroys
 * both, so the peer behind the other side sees the break.
 */
import type { Duplex } from 'node:stream';

/** Resolves when both sides have closed: with the first error, if any. */
export function relay(a: Duplex, b: Duplex): Promise<Error | undefined> {
  return new Promise((resolve) => {
    let first: Error | undefined;
    let closed = 0;
    const fail = (err: Error): void => {
      first ??= err;
      a.destroy();
      b.destroy();
    };
    const closing = (self: Duplex, other: Duplex) => (): void => {
      // Closed before both of its directions ended cleanly: the other side must not wait for it.
      if (!self.readableEnded || !self.writableFinished) other.destroy();
      closed += 1;
      if (closed === 2) resolve(first);
    };
    a.on('error', fail);
    b.on('error', fail);
    a.once('close', closing(a, b));
    b.once('close', closing(b, a));
    a.pipe(b);
    b.pipe(a);
  });
}
