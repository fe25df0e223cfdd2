/**
 * A source tunnel's listener (kubevirt migration-proxy NewSourceProxy, createUnixListener, tag v1.6.2): a unix
 * socket in the source launcher Pod's `public` emptyDir, `migrationproxy/<uid>[-<port>]-source.sock`, where
 * the launcher's libvirt and QEMU connect; each connection dials the target handler's port with TLS. The
 * emptyDir is the tenant's: the directory is made and the socket bound through descriptors, never through a
 * symlink (lib/kernel/safepath); a stale socket is replaced, anything else there is refused.
 */
import { createServer, type Server } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { listenBeneath, mkdirBeneath, openBeneath, withHandle } from '../../kernel/safepath/index.ts';
import { podPathText, type PodPath } from '../../rpc/index.ts';
import { stopServer, Tunnels, type ProxyListener } from './listener.ts';
import { clientOptions, type MigrationTls } from './tls.ts';

const DIAL_TIMEOUT_MS = 10_000;
/** The launcher's user (107) connects; the emptyDir itself is reachable by its Pod and root only. */
const SOCKET_MODE = 0o666;
const DIR_MODE = 0o755;

export interface SourceListenerOptions {
  /** The socket in the source launcher Pod. */
  readonly at: PodPath;
  readonly targetAddress: string;
  readonly targetPort: number;
  /** The current TLS material, read for each dial. */
  readonly tls: () => MigrationTls;
  readonly clock: Clock;
  readonly log: Logger;
}

function dialTarget(o: SourceListenerOptions): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = connect(clientOptions(o.tls(), o.targetAddress, o.targetPort));
    const timer = o.clock.after(DIAL_TIMEOUT_MS, () => {
      s.destroy(new KvError('KV_ERR_TIMEOUT', `no TLS connection within ${DIAL_TIMEOUT_MS} ms`));
    });
    s.once('secureConnect', () => {
      timer.cancel();
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', (err: Error) => {
      timer.cancel();
      s.destroy();
      reject(err);
    });
  });
}

function bind(server: Server, at: string): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => {
      reject(err);
    };
    server.once('error', failed);
    server.listen(at, () => {
      server.off('error', failed);
      resolve(
        () =>
          new Promise<void>((done) => {
            server.close(() => {
              done();
            });
          }),
      );
    });
  });
}

/** Makes `migrationproxy` below the emptyDir when missing, never through a symlink. */
async function makeDir(at: PodPath): Promise<void> {
  const dirs = at.rel.slice(0, -1);
  if (dirs.length === 0) return;
  await withHandle(openBeneath(at.root, [], ['directory']), (root) =>
    withHandle(mkdirBeneath(root, dirs, DIR_MODE), () => Promise.resolve()),
  );
}

export async function startSourceListener(o: SourceListenerOptions): Promise<ProxyListener> {
  const outbound = `${o.targetAddress}:${o.targetPort}`;
  const log = o.log.with({ listening: podPathText(o.at), outbound });
  const tunnels = new Tunnels({ dial: (): Promise<TLSSocket> => dialTarget(o), log });
  const server = createServer({ allowHalfOpen: true }, (s) => {
    tunnels.accept(s);
  });
  await makeDir(o.at);
  const bound = await listenBeneath(o.at.root, o.at.rel, {
    mode: SOCKET_MODE,
    listen: (at) => bind(server, at),
  });
  server.on('error', (err) => {
    log.error('migration proxy listener failed', { reason: err });
  });
  log.info('migration proxy listening on the source');
  return {
    address: bound.path,
    connections: (): number => tunnels.count(),
    stop: async (): Promise<void> => {
      tunnels.destroyAll();
      await bound.close();
      await stopServer(server, tunnels);
      log.info('migration proxy stopped listening');
    },
  };
}
