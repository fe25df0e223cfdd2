/**
 * A minimal JSON client for the local cluster's API server (the admin kubeconfig's credentials), on the
 * testenv's plain node:https helper: the cluster tooling deliberately does not depend on lib/kernel/kube.
 */
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { httpsRequest, type Credentials } from '../../testenv/https.ts';
import { readKubeconfig } from '../../testenv/kubeconfig.ts';

export type Obj = Record<string, unknown> & {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } & Record<
    string,
    unknown
  >;
};
export interface List<T = Obj> {
  items: T[];
}

export class Api {
  private constructor(
    readonly server: string,
    private readonly creds: Credentials,
  ) {}

  static async fromKubeconfig(path: string): Promise<Api> {
    const { server, creds } = await readKubeconfig(path);
    return new Api(server, creds);
  }

  /** The status code and parsed body; never throws on an HTTP status. */
  async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; raw: string }> {
    const res = await httpsRequest(`${this.server}${path}`, this.creds, {
      method,
      ...(body === undefined ? {} : { body }),
      ...(method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {}),
      timeoutMs: 15_000,
    });
    let parsed: unknown = res.body;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      // not JSON: logs, healthz
    }
    return { status: res.status, body: parsed, raw: res.body };
  }

  private async ok<T>(method: string, path: string, body?: unknown, allow: number[] = []): Promise<T> {
    const r = await this.call(method, path, body);
    if ((r.status >= 200 && r.status < 300) || allow.includes(r.status)) return r.body as T;
    const msg =
      typeof r.body === 'object' && r.body !== null ? (r.body as { message?: unknown }).message : r.body;
    throw new KvError('KV_ERR_STATUS', `${method} ${path}: HTTP ${r.status}: ${String(msg)}`);
  }

  get<T = Obj>(path: string): Promise<T> {
    return this.ok<T>('GET', path);
  }
  /** GET that answers undefined for 404. */
  async find<T = Obj>(path: string): Promise<T | undefined> {
    const r = await this.call('GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new KvError('KV_ERR_STATUS', `GET ${path}: HTTP ${r.status}`);
    return r.body as T;
  }
  create<T = Obj>(path: string, body: unknown): Promise<T> {
    return this.ok<T>('POST', path, body);
  }
  /** POST that treats 409 AlreadyExists as done. */
  async ensure(path: string, body: unknown): Promise<void> {
    await this.ok('POST', path, body, [409]);
  }
  patch<T = Obj>(path: string, body: unknown): Promise<T> {
    return this.ok<T>('PATCH', path, body);
  }
  /** DELETE that treats 404 as done. */
  async remove(path: string, body?: unknown): Promise<void> {
    await this.ok('DELETE', path, body, [404]);
  }
  /** Raw text of a GET (pod logs). */
  async text(path: string): Promise<string> {
    const r = await this.call('GET', path);
    if (r.status !== 200) throw new KvError('KV_ERR_STATUS', `GET ${path}: HTTP ${r.status}`);
    return r.raw;
  }
}
