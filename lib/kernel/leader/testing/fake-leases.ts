/**
 * An in-memory stand-in for the API server's lease storage, for unit tests of leader election: get, create
 * and update with the server's resourceVersion rules (create of an existing name → 409 AlreadyExists,
 * update with a stale resourceVersion → 409 Conflict). Each candidate gets its own client view so faults
 * can be injected per candidate. Other KubeClient calls are not supported.
 */
import { KvError, StatusError, newStatus } from '../../errors/errors.ts';
import type { GroupVersionResource, KubeClient, KubeObject } from '../../kube/types.ts';

export type LeaseOp = 'get' | 'create' | 'update';
/** Return an error to fail the call, 'hang' to never answer, undefined to serve it. */
export type Fault = (op: LeaseOp) => Error | 'hang' | undefined;

export interface Call {
  op: LeaseOp;
  name: string;
  outcome: 'ok' | 'error' | 'hang';
}

const notSupported = (): never => {
  throw new KvError('KV_ERR_NOT_IMPLEMENTED', 'not supported by the fake lease store');
};

export class FakeLeaseStore {
  private readonly objects = new Map<string, KubeObject>();
  private rv = 100;
  readonly calls: Call[] = [];

  private key(gvr: GroupVersionResource, ns: string | undefined, name: string | undefined): string {
    return `${gvr.group}/${gvr.resource}/${ns ?? ''}/${name ?? ''}`;
  }

  /** The stored object (a copy), or undefined. */
  peek(gvr: GroupVersionResource, namespace: string, name: string): KubeObject | undefined {
    const o = this.objects.get(this.key(gvr, namespace, name));
    return o === undefined ? undefined : structuredClone(o);
  }

  private get(gvr: GroupVersionResource, name: string, ns: string | undefined): KubeObject {
    const o = this.objects.get(this.key(gvr, ns, name));
    if (!o) throw new StatusError(newStatus(404, `${gvr.resource} "${name}" not found`));
    return structuredClone(o);
  }

  private create(gvr: GroupVersionResource, obj: KubeObject, ns: string | undefined): KubeObject {
    const k = this.key(gvr, ns ?? obj.metadata.namespace, obj.metadata.name);
    if (this.objects.has(k)) {
      throw new StatusError(newStatus(409, 'already exists', { reason: 'AlreadyExists' }));
    }
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(k, stored);
    return structuredClone(stored);
  }

  private update(gvr: GroupVersionResource, obj: KubeObject, ns: string | undefined): KubeObject {
    const k = this.key(gvr, ns ?? obj.metadata.namespace, obj.metadata.name);
    const cur = this.objects.get(k);
    if (!cur) throw new StatusError(newStatus(404, 'not found'));
    const want = obj.metadata.resourceVersion;
    if (want !== undefined && want !== cur.metadata.resourceVersion) {
      throw new StatusError(
        newStatus(409, 'the object has been modified; please apply your changes to the latest version'),
      );
    }
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(k, stored);
    return structuredClone(stored);
  }

  /** A client view on this store; `fault()` is asked before every call. */
  client(fault: Fault = () => undefined): KubeClient {
    const serve = <T>(op: LeaseOp, name: string, fn: () => KubeObject): Promise<T> => {
      const f = fault(op);
      if (f === 'hang') {
        this.calls.push({ op, name, outcome: 'hang' });
        return new Promise<T>(() => undefined);
      }
      if (f) {
        this.calls.push({ op, name, outcome: 'error' });
        return Promise.reject(f);
      }
      try {
        const out = fn() as T;
        this.calls.push({ op, name, outcome: 'ok' });
        return Promise.resolve(out);
      } catch (err) {
        this.calls.push({ op, name, outcome: 'error' });
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    };
    return {
      get: (gvr, name, opts) => serve('get', name, () => this.get(gvr, name, opts?.namespace)),
      create: (gvr, obj, opts) =>
        serve('create', obj.metadata.name ?? '', () => this.create(gvr, obj, opts?.namespace)),
      update: (gvr, obj, opts) =>
        serve('update', obj.metadata.name ?? '', () => this.update(gvr, obj, opts?.namespace)),
      list: notSupported,
      patch: notSupported,
      delete: notSupported,
      watch: notSupported,
      request: notSupported,
    };
  }
}
