import { describe, expect, it } from '@jest/globals';
import type { Component } from '../config/install-config.ts';
import { flagArgs, withFlags } from './flags.ts';
import type { JsonObject } from './json.ts';

type Flags = Record<Component, Record<string, string>>;

const noFlags: Flags = { 'virt-api': {}, 'virt-controller': {}, 'virt-handler': {} };

function workload(kind: string, name: string, containers: JsonObject[]): JsonObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name }, spec: { template: { spec: { containers } } } };
}

const argsOf = (doc: JsonObject, container: number): unknown =>
  (doc as { spec: { template: { spec: { containers: JsonObject[] } } } }).spec.template.spec.containers[
    container
  ]?.['args'];

describe('flagArgs', () => {
  it.each<[Record<string, string>, string[]]>([
    [{}, []],
    [{ v: '4' }, ['-v', '4']],
    [{ 'Leader-Elect': 'true' }, ['--leader-elect', 'true']],
    [{ 'bool-flag': '' }, ['--bool-flag']],
    [
      { port: '9', 'bool-flag': '', V: '3', 'console-server-port': '4101' },
      ['--bool-flag', '--console-server-port', '4101', '--port', '9', '-v', '3'],
    ],
  ])('%j → %j', (flags, args) => {
    expect(flagArgs(flags)).toEqual(args);
  });
});

describe('withFlags', () => {
  const api = workload('Deployment', 'virt-api', [
    { name: 'virt-api', args: ['api', '--port', '8443', '-v', '2'] },
    { name: 'proxy', args: ['rewriter', '--webhook-listen', ':24192'] },
  ]);

  it("puts a component's flags after the role's words, before the generated flags (which win a repeated one)", () => {
    const before = structuredClone(api);
    const out = withFlags(
      api,
      { kind: 'Deployment', name: 'virt-api' },
      { ...noFlags, 'virt-api': { port: '9443', trace: '' } },
    );
    expect(argsOf(out, 0)).toEqual(['api', '--port', '9443', '--trace', '--port', '8443', '-v', '2']);
    expect(argsOf(out, 1)).toEqual(['rewriter', '--webhook-listen', ':24192']);
    expect(api).toEqual(before);
  });

  interface Target {
    kind: string;
    name: string;
    /** Its container's (named as the workload) args; absent: none. */
    args?: string[];
  }

  it.each<[string, Target, Component, unknown]>([
    [
      'the handler DaemonSet takes the handler flags',
      { kind: 'DaemonSet', name: 'virt-handler', args: ['handler', '--port', '4100'] },
      'virt-handler',
      ['handler', '--extra', '1', '--port', '4100'],
    ],
    [
      'the controller Deployment takes the controller flags',
      { kind: 'Deployment', name: 'virt-controller', args: ['controller'] },
      'virt-controller',
      ['controller', '--extra', '1'],
    ],
    [
      'args without role words get the flags first',
      { kind: 'Deployment', name: 'virt-api', args: ['--port', '8443'] },
      'virt-api',
      ['--extra', '1', '--port', '8443'],
    ],
    [
      'a container without args gets them as its args',
      { kind: 'Deployment', name: 'virt-api' },
      'virt-api',
      ['--extra', '1'],
    ],
    [
      'the api flags do not go to the controller',
      { kind: 'Deployment', name: 'virt-controller', args: ['controller'] },
      'virt-api',
      ['controller'],
    ],
    [
      'the handler flags do not go to a Deployment',
      { kind: 'Deployment', name: 'virt-handler', args: ['handler'] },
      'virt-handler',
      ['handler'],
    ],
  ])('%s', (_name, { kind, name, args }, component, expected) => {
    const doc = workload(kind, name, [{ name, ...(args !== undefined && { args }) }]);
    const out = withFlags(doc, { kind, name }, { ...noFlags, [component]: { extra: '1' } });
    expect(argsOf(out, 0)).toEqual(expected);
  });

  it('refuses flags for a workload without its container', () => {
    const doc = workload('Deployment', 'virt-api', [{ name: 'other' }]);
    expect(() =>
      withFlags(doc, { kind: 'Deployment', name: 'virt-api' }, { ...noFlags, 'virt-api': { v: '4' } }),
    ).toThrow(
      expect.objectContaining({
        code: 'KV_ERR_CUSTOMIZE',
        message: 'flags of virt-api: the Deployment has no container virt-api',
      }),
    );
  });

  it('returns the object as it is when its component has no flags', () => {
    expect(withFlags(api, { kind: 'Deployment', name: 'virt-api' }, noFlags)).toBe(api);
  });
});
