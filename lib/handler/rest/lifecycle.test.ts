import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import type { CmdResult, PayloadResult } from '../../rpc/index.ts';
import { runCommand, runQuery } from './lifecycle.ts';
import type { LifecycleLauncher } from './resolve.ts';
import type { CommandRoute, QueryRoute } from './routes.ts';

const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'vm1', namespace: 'ns1', uid: 'u1' },
  spec: { domain: { devices: {} } },
} as VirtualMachineInstance;

type Outcome = CmdResult | Error;

function fakeLauncher(outcome: Outcome, payload?: unknown): { l: LifecycleLauncher; calls: string[] } {
  const calls: string[] = [];
  const answer = <T extends CmdResult>(r: T): Promise<T> =>
    outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(r);
  const payloadResult = (): Promise<PayloadResult> => answer({ ...(outcome as CmdResult), payload });
  const l: LifecycleLauncher = {
    vmiCommand: (method) => {
      calls.push(method);
      return answer(outcome as CmdResult);
    },
    freezeVirtualMachine: (_vmi, seconds) => {
      calls.push(`freezeVirtualMachine(${seconds})`);
      return answer(outcome as CmdResult);
    },
    getGuestInfo: () => (calls.push('getGuestInfo'), payloadResult()),
    getUsers: () => (calls.push('getUsers'), payloadResult()),
    getFilesystems: () => (calls.push('getFilesystems'), payloadResult()),
  };
  return { l, calls };
}

const OK: CmdResult = { success: true, message: '' };
const FAIL: CmdResult = { success: false, message: 'virError(Code=55) "domain is not running"' };
const FREEZE_BODY = '{"unfreezeTimeout":"5m0s"}';

describe('runCommand', () => {
  it.each<[CommandRoute, string, string]>([
    ['pause', 'pauseVirtualMachine', ''],
    ['unpause', 'unpauseVirtualMachine', ''],
    ['freeze', 'freezeVirtualMachine(300)', FREEZE_BODY],
    ['unfreeze', 'unfreezeVirtualMachine', ''],
    ['softreboot', 'softRebootVirtualMachine', ''],
    ['reset', 'resetVirtualMachine', ''],
  ])('%s calls %s and answers 202', async (route, call, body) => {
    const { l, calls } = fakeLauncher(OK);
    expect(await runCommand({ route, vmi, launcher: l, body })).toEqual({ status: 202 });
    expect(calls).toEqual([call]);
  });

  it.each<[CommandRoute, number, string]>([
    ['pause', 500, 'Pause'],
    ['unpause', 500, 'Unpause'],
    ['freeze', 400, 'Freeze'],
    ['unfreeze', 400, 'Unfreeze'],
    ['softreboot', 500, 'SoftReboot'],
    ['reset', 500, 'Reset'],
  ])('%s: a launcher failure answers %i naming %s', async (route, status, command) => {
    const { l } = fakeLauncher(FAIL);
    expect(await runCommand({ route, vmi, launcher: l, body: FREEZE_BODY })).toEqual({
      status,
      text: `server error. command ${command} failed: "virError(Code=55) \\"domain is not running\\""`,
    });
    const broken = fakeLauncher(new Error('/kubevirt.cmd.v1.Cmd/X: UNAVAILABLE: connection refused')).l;
    expect(await runCommand({ route, vmi, launcher: broken, body: FREEZE_BODY })).toEqual({
      status,
      text: `unknown error encountered sending command ${command}: /kubevirt.cmd.v1.Cmd/X: UNAVAILABLE: connection refused`,
    });
  });

  it('answers 400 for a freeze without a usable body and calls nothing', async () => {
    const { l, calls } = fakeLauncher(OK);
    expect(await runCommand({ route: 'freeze', vmi, launcher: l, body: '' })).toEqual({
      status: 400,
      text: 'Unfreeze timeout in freeze request is not set',
    });
    expect(await runCommand({ route: 'freeze', vmi, launcher: l, body: '{"unfreezeTimeout":5}' })).toEqual({
      status: 400,
      text: 'failed to unmarshal unfreeze timeout',
    });
    expect(calls).toEqual([]);
  });

  it('records the events KubeVirt records', async () => {
    const recorder = new MemoryRecorder();
    await runCommand({ route: 'reset', vmi, launcher: fakeLauncher(OK).l, body: '', recorder });
    await runCommand({ route: 'softreboot', vmi, launcher: fakeLauncher(OK).l, body: '', recorder });
    await runCommand({ route: 'pause', vmi, launcher: fakeLauncher(OK).l, body: '', recorder });
    await runCommand({ route: 'freeze', vmi, launcher: fakeLauncher(FAIL).l, body: FREEZE_BODY, recorder });
    expect(recorder.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'Reset', 'VirtualMachineInstance reset'],
      ['Normal', 'SoftRebooted', 'VirtualMachineInstance soft rebooted'],
      [
        'Warning',
        'FreezeError',
        'Failed to freeze VMI: server error. command Freeze failed: "virError(Code=55) \\"domain is not running\\""',
      ],
    ]);
  });
});

describe('runQuery', () => {
  const users = [{ userName: 'root', domain: '', loginTime: 1 }];
  it.each<[QueryRoute, unknown, unknown]>([
    [
      'guestosinfo',
      { hostname: 'guest', os: { name: 'Debian' } },
      { hostname: 'guest', os: { name: 'Debian' } },
    ],
    ['guestosinfo', undefined, {}],
    ['userlist', users, { metadata: {}, items: users }],
    ['userlist', [], { metadata: {}, items: [] }],
    ['userlist', undefined, { metadata: {}, items: null }],
    ['filesystemlist', [{ diskName: 'vda' }], { metadata: {}, items: [{ diskName: 'vda' }] }],
  ])('%s with payload %j answers 200 %j', async (route, payload, json) => {
    expect(await runQuery(route, fakeLauncher(OK, payload).l)).toEqual({ status: 200, json });
  });

  it.each<[QueryRoute, string]>([
    ['guestosinfo', 'GetGuestInfo'],
    ['userlist', 'GetUsers'],
    ['filesystemlist', 'GetFilesystems'],
  ])('%s: a failure answers 500 naming %s', async (route, command) => {
    expect(await runQuery(route, fakeLauncher({ success: false, message: 'no agent' }).l)).toEqual({
      status: 500,
      text: `server error. command ${command} failed: "no agent"`,
    });
  });
});
