import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/v1/objects.ts';
import { migrateCall, migrationsOf, migrationToCancel, nodeSelectorFlag } from './migrate.ts';

describe('--addedNodeSelector', () => {
  it.each<[string, Record<string, string> | undefined, Record<string, string>]>([
    ['zone=a', undefined, { zone: 'a' }],
    ['zone=a,rack=r1', undefined, { zone: 'a', rack: 'r1' }],
    ['rack=r2', { zone: 'a', rack: 'r1' }, { zone: 'a', rack: 'r2' }],
    ['k=v=w', undefined, { k: 'v=w' }],
    ['k=', undefined, { k: '' }],
    ['', { zone: 'a' }, { zone: 'a' }],
  ])('%j after %j', (value, previous, want) => {
    expect(nodeSelectorFlag(value, previous)).toEqual(want);
  });

  it('refuses a pair without = as pflag does', () => {
    expect(() => nodeSelectorFlag('zone=a,rack', undefined)).toThrow(
      'invalid argument "zone=a,rack" for "--addedNodeSelector" flag: rack must be formatted as key=value',
    );
  });
});

describe('migrateCall', () => {
  const path = '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm1/migrate';
  it.each<[string, Parameters<typeof migrateCall>[1], unknown]>([
    ['no flags', {}, {}],
    ['--dry-run', { dryRun: true }, { dryRun: ['All'] }],
    ['a selector', { addedNodeSelector: { zone: 'a' } }, { addedNodeSelector: { zone: 'a' } }],
  ])('%s', (_name, flags, body) => {
    expect(migrateCall({ namespace: 'ns', name: 'vm1' }, flags)).toEqual({ method: 'PUT', path, body });
  });
});

describe('migrate-cancel', () => {
  const m = (name: string, phase?: string): VirtualMachineInstanceMigration =>
    ({
      metadata: { name },
      spec: { vmiName: 'vm1' },
      ...(phase !== undefined && { status: { phase } }),
    }) as VirtualMachineInstanceMigration;

  it('selects the VMI’s migrations by its label', () => {
    expect(migrationsOf('vm1')).toBe('kubevirt.io/vmi-name==vm1');
  });

  it.each<[string, VirtualMachineInstanceMigration[], string | undefined]>([
    ['none', [], undefined],
    ['only ended ones', [m('a', 'Succeeded'), m('b', 'Failed')], undefined],
    ['the first that has not ended', [m('a', 'Failed'), m('b', 'Running'), m('c')], 'b'],
    ['one without a phase yet', [m('c')], 'c'],
  ])('%s', (_name, items, want) => {
    expect(migrationToCancel(items)?.metadata.name).toBe(want);
  });
});
