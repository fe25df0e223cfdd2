import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { status, type sendUnaryData } from '@grpc/grpc-js';
import { KvError } from '../kernel/errors/errors.ts';
import { CmdService, type EmptyRequest, type Response } from './gen/kubevirt/cmd/v1/cmd.ts';
import { serveUnary, serverStatusOf, type UnaryHandler } from './unary.ts';

type PingDef = CmdService['ping'];

/** Drives the wrapped Ping handler with a fake call; resolves with every callback invocation. */
async function drive(handler: UnaryHandler<PingDef>, cancel = false): Promise<unknown[][]> {
  const impl = serveUnary(CmdService, { ping: handler });
  // What the wrapper reads of grpc-js's ServerUnaryCall: the request and the 'cancelled' event.
  const call = Object.assign(new EventEmitter(), { request: {} satisfies EmptyRequest });
  const calls: unknown[][] = [];
  const callback: sendUnaryData<Response> = (...args) => {
    calls.push(args);
  };
  (impl['ping'] as (c: typeof call, cb: typeof callback) => void)(call, callback);
  if (cancel) call.emit('cancelled');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  return calls;
}

describe('serveUnary', () => {
  it.each<[string, UnaryHandler<PingDef>, unknown]>([
    ['a resolved handler', () => Promise.resolve({ success: true, message: 'x' }), null],
    ['a rejected handler', () => Promise.reject(new Error('no')), { code: status.INTERNAL, details: 'no' }],
    [
      'a synchronous throw',
      () => {
        throw new Error('sync');
      },
      { code: status.INTERNAL, details: 'sync' },
    ],
  ])('calls back exactly once for %s', async (_name, handler, wantErr) => {
    const calls = await drive(handler);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toEqual(wantErr);
  });

  it('aborts the signal on cancellation and still calls back once', async () => {
    let sawAbort = false;
    const calls = await drive(
      (_req, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(signal.reason as Error);
          });
        }),
      true,
    );
    expect(sawAbort).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('answers UNIMPLEMENTED for every method without a handler', () => {
    const impl = serveUnary(CmdService, {});
    expect(Object.keys(impl).sort()).toEqual(Object.keys(CmdService).sort());
    const calls: unknown[][] = [];
    (impl['getDomain'] as (c: unknown, cb: (...a: unknown[]) => void) => void)({}, (...a) => calls.push(a));
    expect(calls).toEqual([
      [
        {
          code: status.UNIMPLEMENTED,
          details: '/kubevirt.cmd.v1.Cmd/GetDomain is not implemented by this server',
        },
      ],
    ]);
  });

  it.each([
    [new KvError('KV_ERR_NOT_IMPLEMENTED', 'later'), status.UNIMPLEMENTED],
    [new KvError('KV_ERR_INTERNAL', 'bad'), status.INTERNAL],
    ['a string', status.INTERNAL],
  ])('maps the throw %p to code %d', (err, code) => {
    expect(serverStatusOf(err).code).toBe(code);
  });
});
