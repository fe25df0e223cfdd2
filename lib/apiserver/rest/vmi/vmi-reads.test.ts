import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstancePhase } from '../../../kubevirt/index.ts';
import { vmi, withPhase, withVmiCondition } from '../../../kubevirt/testing/objects.ts';
import { handlerFailure, unexpectedReturnCode, type HandlerCall } from './handler-call.ts';
import { badRequest, conflict, internalError, notFound, type Refusal } from '../refusal.ts';
import {
  NO_GRAPHICS,
  NO_SERIAL_CONSOLE,
  planVmiQuery,
  planVmiStream,
  VMI_FAILED,
  type VmiQuery,
  type VmiStream,
} from './vmi-reads.ts';

type Opt = (v: VirtualMachineInstance) => void;
const onNode: Opt = (v) => {
  (v.status ??= {}).nodeName = 'node-1';
};
const inPhase = (phase: VirtualMachineInstancePhase, ...opts: Opt[]): VirtualMachineInstance =>
  vmi(withPhase(phase), onNode, ...opts);
const agent = withVmiCondition('AgentConnected', 'True');
const devices =
  (d: { autoattachSerialConsole?: boolean; autoattachGraphicsDevice?: boolean }): Opt =>
  (v) => {
    Object.assign(v.spec.domain.devices, d);
  };
const text = (r: Refusal): Refusal => ({
  status: 500,
  reason: 'InternalError',
  message: r.message,
  plainText: true,
});
const vmiConflict = (t: string): Refusal => conflict('virtualmachineinstance', 'testvm', t);
const call = (kind: 'query' | 'stream', sub: string): { call: HandlerCall } => ({
  call: {
    kind,
    node: 'node-1',
    method: 'GET',
    path: `/v1/namespaces/default/virtualmachineinstances/testvm/${sub}`,
    body: 'none',
  },
});

describe('planVmiQuery', () => {
  it.each<[string, VmiQuery, VirtualMachineInstance | undefined, { call: HandlerCall } | Refusal]>([
    ['no VMI: text, 500', 'guestosinfo', undefined, text(notFound('virtualmachineinstance', 'testvm'))],
    ['not running', 'userlist', inPhase('Scheduled', agent), text(vmiConflict('VMI is not running'))],
    [
      'no agent',
      'filesystemlist',
      inPhase('Running'),
      text(vmiConflict('VMI does not have guest agent connected')),
    ],
    [
      'agent condition of any status',
      'guestosinfo',
      inPhase('Running', withVmiCondition('AgentConnected', 'False')),
      call('query', 'guestosinfo'),
    ],
    ['guestosinfo', 'guestosinfo', inPhase('Running', agent), call('query', 'guestosinfo')],
    ['userlist', 'userlist', inPhase('Running', agent), call('query', 'userlist')],
    ['filesystemlist', 'filesystemlist', inPhase('Running', agent), call('query', 'filesystemlist')],
  ])('%s', (_name, query, v, want) => {
    expect(planVmiQuery(query, 'testvm', v)).toEqual(want);
  });
});

describe('planVmiStream', () => {
  it.each<[string, VmiStream, VirtualMachineInstance | undefined, { call: HandlerCall } | Refusal]>([
    ['no VMI', 'console', undefined, notFound('virtualmachineinstance', 'testvm')],
    [
      'console switched off (before the phase)',
      'console',
      inPhase('Failed', devices({ autoattachSerialConsole: false })),
      badRequest(NO_SERIAL_CONSOLE),
    ],
    ['console: failed', 'console', inPhase('Failed'), vmiConflict(VMI_FAILED)],
    ['console: not running', 'console', inPhase('Scheduled'), badRequest('VMI is not running')],
    [
      'console: graphics off does not matter',
      'console',
      inPhase('Running', devices({ autoattachGraphicsDevice: false })),
      call('stream', 'console'),
    ],
    [
      'console',
      'console',
      inPhase('Running', devices({ autoattachSerialConsole: true })),
      call('stream', 'console'),
    ],
    [
      'vnc: graphics off',
      'vnc',
      inPhase('Running', devices({ autoattachGraphicsDevice: false })),
      badRequest(NO_GRAPHICS),
    ],
    ['vnc: failed is just not running', 'vnc', inPhase('Failed'), badRequest('VMI is not running')],
    ['vnc', 'vnc', inPhase('Running'), call('stream', 'vnc')],
  ])('%s', (_name, stream, v, want) => {
    expect(planVmiStream(stream, 'testvm', v)).toEqual(want);
  });
});

describe('handlerFailure', () => {
  const failed = unexpectedReturnCode(400, 'Bad Request', 'failed to unmarshal unfreeze timeout');
  const of = (kind: HandlerCall['kind'], failurePrefix?: string): HandlerCall => ({
    kind,
    node: 'n',
    method: kind === 'command' ? 'PUT' : 'GET',
    path: '/v1/x',
    body: 'none',
    ...(failurePrefix !== undefined && { failurePrefix }),
  });
  it.each<[string, HandlerCall, string, Refusal]>([
    ['a command', of('command'), failed, internalError(failed)],
    [
      'reset of a Scheduled VMI',
      of('command', 'Failed to reset non-running VMI with phase Scheduled: '),
      'EOF',
      internalError('Failed to reset non-running VMI with phase Scheduled: EOF'),
    ],
    [
      'a query: the text',
      of('query'),
      failed,
      { status: 500, reason: 'InternalError', message: failed, plainText: true },
    ],
    [
      'a stream',
      of('stream'),
      'connection refused',
      internalError('dialing virt-handler: connection refused'),
    ],
  ])('%s', (_name, c, error, want) => {
    expect(handlerFailure(c, error)).toEqual(want);
  });

  it('quotes the handler like the Go client', () => {
    expect(failed).toBe(
      'unexpected return code 400 (400 Bad Request), message: failed to unmarshal unfreeze timeout',
    );
  });
});
