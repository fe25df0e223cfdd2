/**
 * The webhook proxy's TLS files watched for rotation, as the api watches its own (KubeVirt's certificate
 * managers read renewed files without a restart): the serving certificate and key with the callers' CA, and the
 * webhook server's CA with the client certificate shown to it. A usable new set is taken for the next
 * connections; a broken one is logged once and the set in use stays (kernel/tls/pem-watch).
 */
import type { Logger } from '../../kernel/log/log.ts';
import { watchCaFile, watchPemFiles, type PemWatch } from '../../kernel/tls/pem-watch.ts';
import type { WebhookProxy, WebhookServing, WebhookUpstreamTls } from './webhook.ts';

/** Where the webhook proxy's PEM came from; a part without its file is not watched. */
export interface WebhookTlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly callersCa?: string | undefined;
  readonly upstreamCa?: string | undefined;
  readonly upstreamClient?: { readonly cert: string; readonly key: string } | undefined;
}

export interface WebhookTlsWatchOptions {
  readonly files: WebhookTlsFiles;
  /** The PEM in use now, as read from those files at start. */
  readonly serving: WebhookServing;
  readonly upstream: WebhookUpstreamTls;
  readonly proxy: Pick<WebhookProxy, 'reloadServing' | 'reloadUpstream'>;
  readonly log: Logger;
  /** Default DEFAULT_PEM_POLL_MS. */
  readonly intervalMs?: number | undefined;
}

/** Starts one watch for the serving side and one for the upstream side (when it has files); close them to stop. */
export function watchWebhookTls(o: WebhookTlsWatchOptions): PemWatch[] {
  const { files, serving, upstream, proxy } = o;
  const every = o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs };
  const watches = [
    watchPemFiles({
      files: { cert: files.cert, key: files.key, ca: files.callersCa },
      current: { cert: serving.cert, key: serving.key, ca: serving.callersCa },
      apply: (next) => {
        proxy.reloadServing({ cert: next.cert, key: next.key, callersCa: next.ca });
      },
      log: o.log.with({ tls: 'webhook serving' }),
      ...every,
    }),
  ];
  const log = o.log.with({ tls: 'webhook upstream' });
  if (files.upstreamClient !== undefined && upstream.client !== undefined)
    watches.push(
      watchPemFiles({
        files: { ...files.upstreamClient, ca: files.upstreamCa },
        current: { ...upstream.client, ca: upstream.ca },
        apply: (next) => {
          proxy.reloadUpstream({ ca: next.ca, client: { cert: next.cert, key: next.key } });
        },
        log,
        ...every,
      }),
    );
  else if (files.upstreamCa !== undefined && upstream.ca !== undefined)
    watches.push(
      watchCaFile({
        file: files.upstreamCa,
        current: upstream.ca,
        apply: (ca) => {
          proxy.reloadUpstream({ ca });
        },
        log,
        ...every,
      }),
    );
  return watches;
}
