import { describe, expect, it } from '@jest/globals';
import {
  FORCE_AND_GRACE,
  lifecyclePlan,
  scheduledLine,
  type LifecycleFlags,
  type LifecycleVerb,
} from './lifecycle.ts';

const T = { namespace: 'ns', name: 'vm1' };
const path = (verb: string): string =>
  `/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm1/${verb}`;

describe('lifecyclePlan', () => {
  it.each<[LifecycleVerb, LifecycleFlags, unknown, string]>([
    ['start', {}, {}, 'Error starting VirtualMachine'],
    [
      'start',
      { paused: true, dryRun: true },
      { paused: true, dryRun: ['All'] },
      'Error starting VirtualMachine',
    ],
    ['stop', {}, {}, 'error stopping VirtualMachine'],
    ['stop', { force: true, gracePeriod: 0 }, { gracePeriod: 0 }, 'error force stopping VirtualMachine'],
    ['stop', { dryRun: true }, { dryRun: ['All'] }, 'error stopping VirtualMachine'],
    ['restart', {}, {}, 'error restarting VirtualMachine'],
    [
      'restart',
      { force: true, gracePeriod: 0, dryRun: true },
      { gracePeriodSeconds: 0, dryRun: ['All'] },
      'error force restarting VirtualMachine',
    ],
  ])('%s %j → PUT with %j', (verb, flags, body, prefix) => {
    expect(lifecyclePlan(verb, T, flags)).toEqual({
      call: { method: 'PUT', path: path(verb), body },
      errorPrefix: prefix,
    });
  });

  it.each<[LifecycleVerb, LifecycleFlags]>([
    ['stop', { force: true }],
    ['stop', { gracePeriod: 0 }],
    ['restart', { force: true }],
    ['restart', { gracePeriod: 5 }],
  ])('%s %j needs both --force and --grace-period', (verb, flags) => {
    expect(() => lifecyclePlan(verb, T, flags)).toThrow(FORCE_AND_GRACE);
  });

  it('encodes the namespace and the name', () => {
    expect(lifecyclePlan('start', { namespace: 'a b', name: 'c/d' }, {}).call.path).toBe(
      '/apis/subresources.kubevirt.io/v1/namespaces/a%20b/virtualmachines/c%2Fd/start',
    );
  });

  it("prints virtctl's line", () => {
    expect(scheduledLine('VM', 'vm1', 'start')).toBe('VM vm1 was scheduled to start');
  });
});
