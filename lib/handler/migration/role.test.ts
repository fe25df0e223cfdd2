import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import {
  isMigrationSource,
  isMigrationTarget,
  isOrphanedMigrationSource,
  migrationInProgress,
  sourceProxyDone,
} from './role.ts';

type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';

const vmi = (
  o: { node?: string; label?: string; state?: State; phase?: 'Running' | 'Failed'; deleting?: boolean } = {},
): VirtualMachineInstance => ({
  metadata: {
    name: 'v',
    namespace: 'ns',
    uid: 'u',
    ...(o.label !== undefined && { labels: { 'kubevirt.io/migrationTargetNodeName': o.label } }),
    ...(o.deleting === true && { deletionTimestamp: T0 }),
  },
  spec: { domain: { devices: {} } },
  status: {
    phase: o.phase ?? 'Running',
    nodeName: o.node ?? 'a',
    ...(o.state !== undefined && { migrationState: o.state }),
  },
});
const st = (o: Partial<State> = {}): State => ({ sourceNode: 'a', targetNode: 'b', migrationUid: 'm', ...o });
const dom = (s: LifeCycle, reason?: string, change?: (d: DomainJson) => void): DomainJson =>
  testDomain(s, reason, change);

describe('isMigrationSource (node a)', () => {
  it.each<[string, VirtualMachineInstance, boolean]>([
    ['no migration', vmi(), false],
    ['running here, source here', vmi({ state: st() }), true],
    ['started, not ended', vmi({ state: st({ startTimestamp: T0 }) }), true],
    ['ended without an outcome yet', vmi({ state: st({ startTimestamp: T0, endTimestamp: T1 }) }), true],
    ['completed', vmi({ state: st({ endTimestamp: T1, completed: true }) }), false],
    ['failed', vmi({ state: st({ endTimestamp: T1, failed: true }) }), false],
    ['handed off: nodeName is the target', vmi({ node: 'b', state: st() }), false],
    ['another source node', vmi({ state: st({ sourceNode: 'c' }) }), false],
    ['final VMI', vmi({ phase: 'Failed', state: st() }), false],
    ['VMI being deleted', vmi({ deleting: true, state: st() }), false],
  ])('%s', (_, v, want) => {
    expect(isMigrationSource(v, 'a')).toBe(want);
  });
});

describe('sourceProxyDone (node a)', () => {
  it.each<[string, VirtualMachineInstance, boolean]>([
    ['running migration', vmi({ state: st({ startTimestamp: T0 }) }), false],
    ['completed, handed off', vmi({ node: 'b', state: st({ endTimestamp: T1, completed: true }) }), true],
    ['failed', vmi({ state: st({ endTimestamp: T1, failed: true }) }), true],
    ['completed without end time', vmi({ state: st({ completed: true }) }), false],
    ['another source', vmi({ state: st({ sourceNode: 'c', endTimestamp: T1, failed: true }) }), false],
  ])('%s', (_, v, want) => {
    expect(sourceProxyDone(v, 'a')).toBe(want);
  });
});

describe('isMigrationTarget (node b)', () => {
  it.each<[string, VirtualMachineInstance, boolean]>([
    ['labelled, handed over', vmi({ label: 'b', state: st() }), true],
    ['labelled, no migrationState yet', vmi({ label: 'b' }), false],
    ['labelled for another node', vmi({ label: 'c', state: st() }), false],
    [
      'not labelled (cleaned up)',
      vmi({ node: 'b', state: st({ endTimestamp: T1, completed: true }) }),
      false,
    ],
    [
      'labelled, completed: the cleanup is still due',
      vmi({ label: 'b', node: 'b', state: st({ completed: true, endTimestamp: T1 }) }),
      true,
    ],
    ['final VMI', vmi({ label: 'b', phase: 'Failed', state: st() }), false],
    ['being deleted', vmi({ label: 'b', deleting: true, state: st() }), false],
  ])('%s', (_, v, want) => {
    expect(isMigrationTarget(v, 'b')).toBe(want);
  });
});

describe('isOrphanedMigrationSource', () => {
  it.each<[string, DomainJson | undefined, boolean]>([
    ['no domain', undefined, false],
    ['running', dom('Running'), false],
    ['shut off, migrated', dom('Shutoff', 'Migrated'), true],
    ['shut off, shut down', dom('Shutoff', 'Shutdown'), false],
  ])('%s', (_, d, want) => {
    expect(isOrphanedMigrationSource(d)).toBe(want);
  });
});

describe('migrationInProgress', () => {
  const meta = (start?: string, end?: string) => (d: DomainJson) => {
    d.Spec.Metadata = {
      KubeVirt: {
        UID: 'u',
        GracePeriod: { DeletionGracePeriodSeconds: 30 },
        Migration: { UID: 'm', ...(start && { StartTimestamp: start }), ...(end && { EndTimestamp: end }) },
      },
    };
  };
  it.each<[string, VirtualMachineInstance | undefined, DomainJson | undefined, boolean]>([
    ['nothing', vmi(), dom('Running'), false],
    ['VMI: started, not ended', vmi({ state: st({ startTimestamp: T0 }) }), undefined, true],
    ['VMI: ended', vmi({ state: st({ startTimestamp: T0, endTimestamp: T1 }) }), dom('Running'), false],
    ['domain: started, not ended', undefined, dom('Running', 'Unknown', meta(T0)), true],
    ['domain: ended', vmi(), dom('Running', 'Unknown', meta(T0, T1)), false],
    ['domain paused for migration', vmi(), dom('Paused', 'Migration'), true],
    ['domain paused, post-copy', vmi(), dom('Paused', 'Postcopy'), true],
    ['domain paused by the user', vmi(), dom('Paused', 'User'), false],
  ])('%s', (_, v, d, want) => {
    expect(migrationInProgress(v, d)).toBe(want);
  });
});
