/**
 * The connection virtctl-ts makes from the kubeconfig alone (never the in-cluster service account): the API
 * server URL, the namespace (-n, else the context's, else default), JSON calls through the kernel's HTTP
 * client (its TLS, token and client certificate), and the same credentials for websockets. Every failure
 * leaves wrapped in RequestFailed with the request and the server URL (its userinfo dropped), for
 * describeError.
 */
import type { ClientOptions } from 'ws';
import { HttpKubeClient, loadRestConfig, type KubeClient, type RestConfig } from '../kernel/kube/index.ts';
import { FileTokenSource, staticTokenSource, type TokenSource } from '../kernel/kube/index.ts';
import { realClock } from '../kernel/clock.ts';
import { buildInfo } from '../version/version.ts';
import { withoutUserinfo } from './server-url.ts';
import type { ApiCall } from './api-call.ts';
import { RequestFailed } from './errors/failures.ts';

export interface GlobalFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
}

const DEFAULT_NAMESPACE = 'default';

export function resolveNamespace(flag: string | undefined, contextNamespace: string | undefined): string {
  if (flag !== undefined && flag !== '') return flag;
  return contextNamespace !== undefined && contextNamespace !== '' ? contextNamespace : DEFAULT_NAMESPACE;
}

export class VirtctlClient {
  readonly namespace: string;
  readonly server: string;
  readonly kube: KubeClient & { destroy(): Promise<void> };
  private readonly tokens: TokenSource;

  constructor(
    readonly config: RestConfig,
    namespaceFlag: string | undefined,
    /** Aborts every call in flight (SIGINT/SIGTERM). */
    private readonly signal?: AbortSignal,
  ) {
    this.namespace = resolveNamespace(namespaceFlag, config.namespace);
    this.server = withoutUserinfo(config.server);
    this.kube = new HttpKubeClient(config);
    this.tokens =
      config.tokenFile !== undefined
        ? new FileTokenSource(config.tokenFile, { clock: realClock })
        : staticTokenSource(config.token);
  }

  static fromFlags(
    flags: GlobalFlags,
    env: Readonly<Record<string, string | undefined>>,
    signal?: AbortSignal,
    /** Each kubeconfig warning, as one sentence (an unverified server, a token over plain http). */
    warn: (text: string) => void = () => undefined,
  ): VirtctlClient {
    const config = loadRestConfig({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      inCluster: false,
      env,
      userAgent: `virtctl-ts/${buildInfo().version}`,
      onWarning: (w) => {
        warn(w.text);
      },
    });
    return new VirtctlClient(config, flags.namespace, signal);
  }

  async call<T = unknown>(c: ApiCall, signal: AbortSignal | undefined = this.signal): Promise<T> {
    try {
      return await this.kube.request<T>({
        method: c.method,
        path: c.path,
        ...(c.body !== undefined && { body: c.body }),
        ...(signal !== undefined && { signal }),
      });
    } catch (err) {
      throw new RequestFailed({ method: c.method, path: c.path }, this.server, err);
    }
  }

  /** wss:// URL of an API path (the server URL's own path prefix kept). */
  websocketUrl(path: string, query?: Readonly<Record<string, string>>): URL {
    const base = new URL(this.server);
    const url = new URL(base.href.replace(/\/+$/, '') + path);
    url.protocol = base.protocol === 'http:' ? 'ws:' : 'wss:';
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url;
  }

  /** TLS material and headers for a websocket to the API server, as the HTTP client sends them. */
  async websocketOptions(): Promise<ClientOptions> {
    const c = this.config;
    const token = await this.tokens.token();
    return {
      ...(c.ca !== undefined && { ca: c.ca }),
      ...(c.cert !== undefined && { cert: c.cert }),
      ...(c.key !== undefined && { key: c.key }),
      ...(c.tlsServerName !== undefined && { servername: c.tlsServerName }),
      rejectUnauthorized: c.insecureSkipTLSVerify !== true,
      headers: {
        'user-agent': c.userAgent,
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
      },
      handshakeTimeout: 10_000,
    };
  }

  close(): Promise<void> {
    return this.kube.destroy();
  }
}
