/**
 * The api's TLS files watched for rotation, as KubeVirt's virt-api picks up its renewed certificates from their
 * files (pkg/certificates/bootstrap FileCertificateManager): the serving certificate and key (new connections get
 * the new pair, the client-CA trust stays as the request-header refresh left it) and the handlers' CA with the
 * client certificate and key the api dials them with (the next dial uses the new ones), and the CAs of its callers'
 * client certificates (the webhook callers', the virtualization-api's). Open sessions keep theirs.
 */
import type { Logger } from '../kernel/log/log.ts';
import type { RoleContext } from '../kernel/runtime/role.ts';
import { watchCaFile, watchPemFiles } from '../kernel/tls/pem-watch.ts';
import type { ApiServer } from './server.ts';
import type { ReloadableHandlerTls } from './stream/dial.ts';

/** The files the api's TLS material was read from; a part without its files is not reloaded. */
export interface ApiTlsFiles {
  readonly serving?: { readonly cert: string; readonly key: string };
  readonly handlerClient?: { readonly ca: string; readonly cert: string; readonly key: string };
  /** The CA bundle of the webhook callers' certificates. */
  readonly webhookClientCa?: string;
  /** The CA bundle of the client certificates that may send identity headers (--client-ca-file). */
  readonly clientCa?: string;
}

/** A CA file watched on its own, with what it holds now and what takes a new one. */
interface CaReload {
  readonly current: string;
  readonly apply: (ca: string) => void;
}

export interface ApiTlsWatchOptions {
  readonly files: ApiTlsFiles | undefined;
  readonly server: ApiServer;
  /** The serving pair in use now. */
  readonly serving: { readonly cert: string; readonly key: string };
  readonly handlerTls: ReloadableHandlerTls;
  readonly webhookClientCa?: CaReload;
  readonly clientCa?: CaReload;
  readonly log: Logger;
  /** Default DEFAULT_PEM_POLL_MS. */
  readonly intervalMs?: number | undefined;
}

/** Starts a watch per named set of files; the role's shutdown stops them. */
export function watchApiTls(o: ApiTlsWatchOptions, ctx: RoleContext): void {
  const every = o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs };
  const { serving, handlerClient, webhookClientCa, clientCa } = o.files ?? {};
  for (const [name, file, reload] of [
    ['webhook client CA', webhookClientCa, o.webhookClientCa],
    ['client CA', clientCa, o.clientCa],
  ] as const) {
    if (file === undefined || reload === undefined) continue;
    const w = watchCaFile({ file, ...reload, log: o.log.with({ tls: name }), ...every });
    ctx.defer(() => w.close());
  }
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
