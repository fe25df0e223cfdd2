/**
 * Typed unary calls over ts-proto's grpc-js service definitions, both directions.
 * Server: handlers are async functions; the wrapper answers exactly once (a settled flag and a
 * `return` after every callback), answers UNIMPLEMENTED for every RPC the impl leaves out, and
 * aborts the handler's signal when the client cancels or its deadline passes.
 * Client: every call has a deadline; failures become RpcTransportError.
 */
import {
  Metadata,
  status,
  type Client,
  type handleUnaryCall,
  type StatusObject,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { KvError } from '../kernel/errors/errors.ts';
import { toTransportError } from './errors.ts';

/** The shape of one ts-proto unary method definition. */
export interface UnaryMethodDef<Req, Res> {
  readonly path: string;
  readonly requestStream: false;
  readonly responseStream: false;
  requestSerialize(value: Req): Buffer;
  requestDeserialize(value: Buffer): Req;
  responseSerialize(value: Res): Buffer;
  responseDeserialize(value: Buffer): Res;
}

/** What the generic code needs to know about any definition; the types come from RequestOf/ResponseOf. */
export interface AnyUnaryDef {
  readonly path: string;
  readonly requestStream: false;
  readonly responseStream: false;
}

export type RequestOf<D> = D extends { requestDeserialize(value: Buffer): infer R } ? R : never;
export type ResponseOf<D> = D extends { responseDeserialize(value: Buffer): infer R } ? R : never;

/** One async function per RPC; `signal` aborts when the client cancels or its deadline passes. */
export type UnaryHandler<D> = (request: RequestOf<D>, signal: AbortSignal) => Promise<ResponseOf<D>>;
export type UnaryImpl<S> = { [K in keyof S]?: UnaryHandler<S[K]> };

type AnyHandler = (request: unknown, signal: AbortSignal) => Promise<unknown>;

/** How a handler's throw reaches the client: KV_ERR_NOT_IMPLEMENTED → UNIMPLEMENTED, else INTERNAL. */
export function serverStatusOf(err: unknown): Partial<StatusObject> {
  if (err instanceof KvError && err.code === 'KV_ERR_NOT_IMPLEMENTED') {
    return { code: status.UNIMPLEMENTED, details: err.message };
  }
  return { code: status.INTERNAL, details: err instanceof Error ? err.message : String(err) };
}

function wrapHandler(fn: AnyHandler): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const abort = new AbortController();
    call.on('cancelled', () => {
      abort.abort(new KvError('KV_ERR_ABORTED', 'call cancelled by the client'));
    });
    let settled = false;
    const onDone = (value: unknown): void => {
      if (settled) return;
      settled = true;
      callback(null, value);
      return;
    };
    const onError = (err: unknown): void => {
      if (settled) return;
      settled = true;
      callback(serverStatusOf(err));
      return;
    };
    // The executor turns a synchronous throw into a rejection too.
    void new Promise((resolve) => {
      resolve(fn(call.request, abort.signal));
    }).then(onDone, onError);
  };
}

function unimplemented(path: string): handleUnaryCall<unknown, unknown> {
  return (_call, callback) => {
    callback({ code: status.UNIMPLEMENTED, details: `${path} is not implemented by this server` });
    return;
  };
}

/** The grpc-js implementation object for `service`: impl's handlers, UNIMPLEMENTED for the rest. */
export function serveUnary<S extends Record<string, AnyUnaryDef>>(
  service: S,
  impl: UnaryImpl<S>,
): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = {};
  const handlers = impl as Partial<Record<string, AnyHandler>>;
  for (const [name, def] of Object.entries(service)) {
    const fn = handlers[name];
    out[name] = fn === undefined ? unimplemented(def.path) : wrapHandler(fn);
  }
  return out;
}

export interface CallTiming {
  /** Absolute deadline, milliseconds since the epoch. */
  readonly deadline: number;
}

/** One unary call with a deadline; resolves with the response or rejects with RpcTransportError. */
export function callUnary<Req, Res>(
  client: Client,
  def: UnaryMethodDef<Req, Res>,
  request: Req,
  timing: CallTiming,
): Promise<Res> {
  const method = def.path;
  const serialize = (value: Req): Buffer => def.requestSerialize(value);
  const deserialize = (value: Buffer): Res => def.responseDeserialize(value);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method,
      serialize,
      deserialize,
      request,
      new Metadata(),
      { deadline: timing.deadline },
      (err, value) => {
        if (err !== null || value === undefined) {
          reject(toTransportError(method, err ?? new Error('empty response')));
          return;
        }
        resolve(value);
        return;
      },
    );
  });
}
