/**
 * The api's TLS files watched for rotation, as KubeVirt's virt-api picks up its renewed certificates from their
 * files (pkg/certificates/bootstrap FileCertificateManager): the serving certificate and key (new connections get
 * the new pair, the client-CA trust stays as the request-header refresh left it) and the handlers' CA with the
 * client certificate and key the api dials them with (the next dial uses the new ones). Open sessions keep theirs.
 */
import type { Logger } from '../kernel/log/log.ts';
import type { RoleContext } from '../kernel/runtime/role.ts';
import { watchPemFiles } from '../kernel/tls/pem-watch.ts';
import type { ApiServer } from './server.ts';
import type { ReloadableHandlerTls } from './stream/dial.ts';

/** The files the api's TLS material was read from; a part without its files is not reloaded. */
export interface ApiTlsFiles {
  readonly serving?: { readonly cert: string; readonly key: string };
  readonly handlerClient?: { readonly ca: string; readonly cert: string; readonly key: string };
}

export interface ApiTlsWatchOptions {
  readonly files: ApiTlsFiles | undefined;
  readonly server: ApiServer;
  /** The serving pair in use now. */
  readonly serving: { readonly cert: string; readonly key: string };
  readonly handlerTls: ReloadableHandlerTls;
  readonly log: Logger;
  /** Default DEFAULT_PEM_POLL_MS. */
  readonly intervalMs?: number | undefined;
}

/** Starts a watch per named set of files; the role's shutdown stops them. */
export function watchApiTls(o: ApiTlsWatchOptions, ctx: RoleContext): void {
  const every = o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs };
  const { serving, handlerClient } = o.files ?? {};
  if (serving !== undefined) {
    const w = watchPemFiles({
      files: serving,
      current: o.serving,
      apply: (next) => {
        o.server.reloadTls({ cert: next.cert, key: next.key });
      },
      log: o.log.with({ tls: 'serving' }),
      ...every,
    });
    ctx.defer(() => w.close());
  }
  if (handlerClient !== undefined) {
    const w = watchPemFiles({
      files: handlerClient,
      current: o.handlerTls,
      apply: (next) => {
        const pem = (text: string | undefined): Buffer => Buffer.from(text ?? '');
        o.handlerTls.reload({ ca: pem(next.ca), cert: pem(next.cert), key: pem(next.key) });
      },
      log: o.log.with({ tls: 'handler client' }),
      ...every,
    });
    ctx.defer(() => w.close());
  }
}
