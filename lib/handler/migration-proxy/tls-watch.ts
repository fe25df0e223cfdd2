/**
 * The migration proxies' TLS files watched for rotation (kernel/tls/pem-watch.ts, as the console server watches
 * its own): the console server's CA and pair, which a target shows, and the handler's client pair, which a source
 * shows. Each checked new set is merged into the material in use and handed to the proxies for their next
 * handshakes and dials (manager.ts reloadTls); a set the proxies refuse leaves the old one in use.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { watchPemFiles, type PemWatch } from '../../kernel/tls/pem-watch.ts';
import type { MigrationTls } from './tls.ts';

export interface MigrationTlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

export interface MigrationTlsWatchOptions {
  readonly files: MigrationTlsFiles;
  /** The material in use now (as read at start-up). */
  readonly tls: MigrationTls;
  /** Takes new material into use; a throw keeps the old (logged by the watch). */
  readonly apply: (tls: MigrationTls) => void;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly intervalMs?: number;
}

export function watchMigrationTls(o: MigrationTlsWatchOptions): PemWatch {
  let now = o.tls;
  const use = (change: Partial<MigrationTls>): void => {
    const next = { ...now, ...change };
    o.apply(next);
    now = next;
  };
  const common = {
    log: o.log,
    ...(o.clock !== undefined && { clock: o.clock }),
    ...(o.intervalMs !== undefined && { intervalMs: o.intervalMs }),
  };
  const { files } = o;
  const server = watchPemFiles({
    ...common,
    files: { ca: files.ca, cert: files.cert, key: files.key },
    current: { ca: now.ca, cert: now.cert, key: now.key },
    apply: (s) => {
      use({ ca: Buffer.from(s.ca ?? ''), cert: Buffer.from(s.cert), key: Buffer.from(s.key) });
    },
  });
  const client = watchPemFiles({
    ...common,
    files: { cert: files.clientCert, key: files.clientKey },
    current: { cert: now.clientCert, key: now.clientKey },
    apply: (s) => {
      use({ clientCert: Buffer.from(s.cert), clientKey: Buffer.from(s.key) });
    },
  });
  return {
    close: async (): Promise<void> => {
      await Promise.all([server.close(), client.close()]);
    },
  };
}
