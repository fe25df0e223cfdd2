import { describe, expect, it } from '@jest/globals';
import {
  bareCall,
  freezeCall,
  guestQuery,
  guestQueryOutput,
  parseTargetKind,
  pauseCall,
} from './vmi-commands.ts';

const T = { namespace: 'ns', name: 'v' };
const vmi = (sub: string): string =>
  `/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/v/${sub}`;

describe('VMI commands', () => {
  it.each([
    ['vm', 'vm'],
    ['VM', 'vm'],
    ['VirtualMachines', 'vm'],
    ['vmi', 'vmi'],
    ['virtualmachineinstance', 'vmi'],
    ['VMIs', 'vmi'],
  ])('reads the resource type %s as %s', (word, kind) => {
    expect(parseTargetKind(word)).toBe(kind);
  });

  it('refuses another resource type', () => {
    expect(() => parseTargetKind('pod')).toThrow(
      "unsupported resource type 'pod': use vm (virtualmachine) or vmi (virtualmachineinstance)",
    );
  });

  it.each([
    ['pause', undefined, {}],
    ['unpause', true, { dryRun: ['All'] }],
  ] as const)('%s (dry run %p)', (verb, dryRun, body) => {
    expect(pauseCall(verb, T, dryRun)).toEqual({ method: 'PUT', path: vmi(verb), body });
  });

  it.each([
    ['5m', '5m0s'],
    ['90s', '1m30s'],
    ['1h', '1h0m0s'],
    ['1.5s', '1.5s'],
    ['0', '0s'],
  ])('freeze --unfreeze-timeout %s sends %s', (flag, sent) => {
    expect(freezeCall(T, flag)).toEqual({
      method: 'PUT',
      path: vmi('freeze'),
      body: { unfreezeTimeout: sent },
    });
  });

  it.each([
    ['5', 'invalid argument "5" for "--unfreeze-timeout" flag: time: invalid duration "5"'],
    ['-1m', '--unfreeze-timeout must not be negative, got -1m'],
  ])('refuses --unfreeze-timeout %s', (flag, message) => {
    expect(() => freezeCall(T, flag)).toThrow(message);
  });

  it('sends unfreeze and softreboot without a body', () => {
    expect(bareCall('unfreeze', T)).toEqual({ method: 'PUT', path: vmi('unfreeze') });
    expect(bareCall('softreboot', T)).toEqual({ method: 'PUT', path: vmi('softreboot') });
  });

  it.each([
    ['guestosinfo', 'guestosinfo', 'Error getting guestosinfo of VirtualMachineInstance v'],
    ['userlist', 'userlist', 'Error listing users of VirtualMachineInstance v'],
    ['fslist', 'filesystemlist', 'Error listing filesystems of VirtualMachineInstance v'],
  ] as const)('%s GETs %s', (query, sub, prefix) => {
    expect(guestQuery(query, T)).toEqual({ call: { method: 'GET', path: vmi(sub) }, errorPrefix: prefix });
  });

  it.each<[unknown, string]>([
    [{ items: [{ userName: 'root' }] }, '{\n  "items": [\n    {\n      "userName": "root"\n    }\n  ]\n}\n'],
    ['{"a":1}', '{\n  "a": 1\n}\n'],
    ['not json', 'not json\n'],
    [undefined, '{}\n'],
  ])('prints %j as indented JSON', (answer, text) => {
    expect(guestQueryOutput(answer)).toBe(text);
  });
});
