/**
 * A KubeClient for controller unit tests that records every write in order ('create pods ns/name', 'patch
 * virtualmachines ns/name status', ...) with its body, answers creates and patches with a plausible object, and
 * fails the next matching call when told to. Reads are not supported: controllers read from their stores.
 */
import { KvError, newStatus, StatusError } from '../../errors/errors.ts';
import type {
  DeleteOptions,
  GroupVersionResource,
  KubeClient,
  KubeObject,
  ObjectList,
  PatchOptions,
  WatchEvent,
  WriteOptions,
} from '../types.ts';

export interface Action {
  verb: 'create' | 'update' | 'patch' | 'delete';
  resource: string;
  /** ns/name (the generated name for creates with generateName). */
  key: string;
  subresource?: string;
  body?: unknown;
  options?: unknown;
}

/** '<verb> <resource> <ns/name>[ <subresource>]' for compact assertions. */
const describeAction = (a: Action): string =>
  `${a.verb} ${a.resource} ${a.key}${a.subresource === undefined ? '' : ` ${a.subresource}`}`;

interface Failure {
  verb: Action['verb'];
  resource: string;
  err: Error;
}

export class RecordingClient implements KubeClient {
  readonly actions: Action[] = [];
  private failures: Failure[] = [];
  private seq = 0;
  /** What a patch answers: by default the body merged shallowly onto { metadata: { name, namespace } }. */
  patchAnswer: (gvr: GroupVersionResource, name: string, body: unknown, ns: string) => KubeObject = (
    _g,
    name,
    body,
    ns,
  ) => {
    const b = (body ?? {}) as { metadata?: Record<string, unknown> };
    return {
      ...(b as object),
      metadata: { ...b.metadata, name, namespace: ns, resourceVersion: String(++this.seq + 1000) },
    };
  };

  /** The next call with this verb on this resource throws err. */
  failNext(verb: Action['verb'], resource: string, err: Error): void {
    this.failures.push({ verb, resource, err });
  }

  /** 'verb resource key[ sub]' of every recorded action. */
  get log(): string[] {
    return this.actions.map(describeAction);
  }

  /** Records the action; returns the error to fail it with, if one was queued. */
  private record(a: Action): Error | undefined {
    this.actions.push(a);
    const i = this.failures.findIndex((f) => f.verb === a.verb && f.resource === a.resource);
    return i < 0 ? undefined : this.failures.splice(i, 1)[0]?.err;
  }

  create<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = opts.namespace ?? obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? `${obj.metadata.generateName ?? ''}gen${++this.seq}`;
    const failed = this.record({ verb: 'create', resource: gvr.resource, key: `${ns}/${name}`, body: obj });
    if (failed !== undefined) return Promise.reject(failed);
    const seq = ++this.seq;
    return Promise.resolve({
      ...structuredClone(obj),
      metadata: {
        ...structuredClone(obj.metadata),
        name,
        namespace: ns,
        uid: `uid-${seq}`,
        resourceVersion: String(seq + 1000),
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
    });
  }

  update<T extends KubeObject>(gvr: GroupVersionResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = opts.namespace ?? obj.metadata.namespace ?? '';
    const failed = this.record({
      verb: 'update',
      resource: gvr.resource,
      key: `${ns}/${obj.metadata.name ?? ''}`,
      ...(opts.subresource !== undefined && { subresource: opts.subresource }),
      body: obj,
    });
    if (failed !== undefined) return Promise.reject(failed);
    return Promise.resolve(structuredClone(obj));
  }

  patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const ns = opts.namespace ?? '';
    const failed = this.record({
      verb: 'patch',
      resource: gvr.resource,
      key: `${ns}/${name}`,
      ...(opts.subresource !== undefined && { subresource: opts.subresource }),
      body,
      options: { type: opts.type },
    });
    if (failed !== undefined) return Promise.reject(failed);
    return Promise.resolve(this.patchAnswer(gvr, name, body, ns) as T);
  }

  delete(gvr: GroupVersionResource, name: string, opts: DeleteOptions = {}): Promise<void> {
    const failed = this.record({
      verb: 'delete',
      resource: gvr.resource,
      key: `${opts.namespace ?? ''}/${name}`,
      options: opts,
    });
    if (failed !== undefined) return Promise.reject(failed);
    return Promise.resolve();
  }

  get(): Promise<never> {
    return this.unsupported('get');
  }
  list<T extends KubeObject>(): Promise<ObjectList<T>> {
    return this.unsupported('list');
  }
  watch<T extends KubeObject>(): AsyncIterable<WatchEvent<T>> {
    throw new KvError('KV_ERR_NOT_IMPLEMENTED', 'watch is not supported by the recording client');
  }
  request(): Promise<never> {
    return this.unsupported('request');
  }

  private unsupported(what: string): Promise<never> {
    return Promise.reject(
      new KvError('KV_ERR_NOT_IMPLEMENTED', `${what} is not supported by the recording client`),
    );
  }
}

export const conflict = (): StatusError => new StatusError(newStatus(409, 'the object has been modified'));
export const alreadyExists = (): StatusError =>
  new StatusError(newStatus(409, 'already exists', { reason: 'AlreadyExists' }));
export const forbidden = (msg = 'exceeded quota'): StatusError => new StatusError(newStatus(403, msg));
