import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import { scopedMergePatch } from '../../kernel/controller/merge-patch.ts';
import {
  TARGET_PATCH_SCOPE,
  targetAction,
  targetVmi,
  type TargetAction,
  type TargetStatusInput,
} from './target.ts';

type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const NOW = Date.parse('2026-01-01T00:00:30Z');
const UP: LauncherReach = { initialized: true, unresponsive: false };

const vmi = (state: State, phase: 'Running' | 'Succeeded' = 'Running'): VirtualMachineInstance => ({
  metadata: {
    name: 'v',
    namespace: 'ns',
    uid: 'u',
    labels: { 'kubevirt.io/nodeName': 'a', 'kubevirt.io/migrationTargetNodeName': 'b' },
    annotations: { 'kubevirt.io/create-migration-target': 'true' },
  },
  spec: { domain: { devices: {} } },
  status: {
    phase,
    nodeName: 'a',
    launcherContainerImageVersion: 'img',
    conditions: [{ type: 'MigrationRequired', status: 'True' }],
    migrationState: state,
  },
});
const st = (o: Partial<State> = {}): State => ({ sourceNode: 'a', targetNode: 'b', migrationUid: 'm', ...o });
const dom = (s: LifeCycle, reason = 'Unknown', end?: string): DomainJson =>
  testDomain(s, reason, (d) => {
    d.Spec.Metadata = {
      KubeVirt: {
        UID: 'u',
        GracePeriod: { DeletionGracePeriodSeconds: 30 },
        Migration: { UID: 'm', StartTimestamp: T0, ...(end !== undefined && { EndTimestamp: end }) },
      },
    };
  });

describe('targetAction', () => {
  it.each<
    [string, State, DomainJson | undefined, LauncherReach, TargetAction['kind'], 'Running' | 'Succeeded']
  >([
    ['launcher not ready', st(), undefined, { initialized: false, unresponsive: false }, 'wait', 'Running'],
    ['launcher gone', st(), undefined, { initialized: true, unresponsive: true }, 'unresponsive', 'Running'],
    ['ready: prepare', st(), undefined, UP, 'prepare', 'Running'],
    [
      'prepared, migration running',
      st({ startTimestamp: T0, targetNodeAddress: '10.0.0.2' }),
      undefined,
      UP,
      'none',
      'Running',
    ],
    [
      'ended, outcome not recorded',
      st({ startTimestamp: T0, endTimestamp: T1 }),
      dom('Running'),
      UP,
      'finalize',
      'Running',
    ],
    [
      'completed: clean up',
      st({ startTimestamp: T0, endTimestamp: T1, completed: true }),
      dom('Running'),
      UP,
      'cleanup',
      'Running',
    ],
    [
      'failed: clean up, launcher not ready',
      st({ endTimestamp: T1, failed: true }),
      undefined,
      { initialized: false, unresponsive: false },
      'cleanup',
      'Running',
    ],
    [
      'failed post-copy, VMI still running',
      st({ endTimestamp: T1, failed: true }),
      dom('Paused', 'PostcopyFailed'),
      UP,
      'holdPostCopy',
      'Running',
    ],
    [
      'failed post-copy, VMI succeeded',
      st({ endTimestamp: T1, failed: true }),
      dom('Paused', 'PostcopyFailed'),
      UP,
      'cleanup',
      'Succeeded',
    ],
  ])('%s', (...[, state, domain, launcher, want, phase]) => {
    expect(targetAction({ vmi: vmi(state, phase), node: 'b', domain, launcher, nowMs: NOW }).kind).toBe(want);
  });

  it('says whether the cleanup is of a failed migration', () => {
    const i = { node: 'b', domain: undefined, launcher: UP, nowMs: NOW };
    expect(targetAction({ ...i, vmi: vmi(st({ endTimestamp: T1, failed: true })) })).toEqual({
      kind: 'cleanup',
      failed: true,
    });
    expect(targetAction({ ...i, vmi: vmi(st({ endTimestamp: T1, completed: true })) })).toEqual({
      kind: 'cleanup',
      failed: false,
    });
  });
});

const input = (v: VirtualMachineInstance, o: Partial<TargetStatusInput> = {}): TargetStatusInput => ({
  vmi: v,
  node: 'b',
  domain: undefined,
  launcher: UP,
  nowMs: NOW,
  migrationAddress: '10.0.0.2',
  proxyPorts: { '0': 4135, '49152': 4136, '49153': 4137 },
  action: { kind: 'prepare' },
  actionDone: true,
  ...o,
});

describe('targetVmi', () => {
  it('publishes the proxy address and ports once prepared', () => {
    const out = targetVmi(input(vmi(st())));
    expect(out.status?.migrationState).toEqual({
      ...st(),
      targetNodeAddress: '10.0.0.2',
      targetDirectMigrationNodePorts: { '0': 4135, '49152': 4136, '49153': 4137 },
    });
    expect(out.status?.nodeName).toBe('a');
  });

  it('publishes nothing while the proxy is not up', () => {
    const v = vmi(st());
    expect(targetVmi(input(v, { proxyPorts: undefined }))).toEqual(v);
    expect(targetVmi(input(v, { proxyPorts: {} }))).toEqual(v);
  });

  it('leaves a published address as it is during the migration', () => {
    const v = vmi(
      st({ startTimestamp: T0, targetNodeAddress: '10.0.0.9', targetDirectMigrationNodePorts: { '0': 1 } }),
    );
    expect(targetVmi(input(v, { action: { kind: 'none' } }))).toEqual(v);
  });

  it('records the domain arriving, then running, and drops MigrationRequired', () => {
    const v = vmi(st({ startTimestamp: T0, targetNodeAddress: '10.0.0.2' }));
    const paused = targetVmi(input(v, { domain: dom('Paused', 'Migration'), action: { kind: 'none' } }));
    expect(paused.status?.migrationState?.targetNodeDomainDetected).toBe(true);
    expect(paused.status?.migrationState?.targetNodeDomainReadyTimestamp).toBeUndefined();
    const running = targetVmi(input(paused, { domain: dom('Running'), action: { kind: 'none' } }));
    expect(running.status?.migrationState?.targetNodeDomainReadyTimestamp).toBe('2026-01-01T00:00:30Z');
    expect(running.status?.conditions).toEqual([]);
    expect(running.status?.nodeName).toBe('a');
  });

  it('takes the VMI over once the domain says the migration ended, and marks it completed once finalized', () => {
    const v = vmi(st({ startTimestamp: T0, endTimestamp: T1, targetNodeAddress: '10.0.0.2' }));
    const out = targetVmi(input(v, { domain: dom('Running', 'Unknown', T1), action: { kind: 'finalize' } }));
    expect(out.metadata.labels).toEqual({
      'kubevirt.io/nodeName': 'b',
      'kubevirt.io/migrationTargetNodeName': 'b',
    });
    expect(out.status?.nodeName).toBe('b');
    expect(out.status?.migrationTransport).toBe('Unix');
    expect(out.status?.launcherContainerImageVersion).toBeUndefined();
    expect(out.status?.phase).toBe('Running');
    expect(out.status?.migrationState).toMatchObject({
      completed: true,
      endTimestamp: T1,
      targetNodeDomainDetected: true,
      targetNodeDomainReadyTimestamp: '2026-01-01T00:00:30Z',
    });
  });

  it('does not mark completed when finalizing failed', () => {
    const v = vmi(st({ startTimestamp: T0, endTimestamp: T1 }));
    const out = targetVmi(
      input(v, { domain: dom('Running', 'Unknown', T1), action: { kind: 'finalize' }, actionDone: false }),
    );
    expect(out.status?.migrationState?.completed).toBeUndefined();
  });

  it('drops the target label and annotation after the cleanup', () => {
    const v = vmi(st({ endTimestamp: T1, completed: true }));
    const out = targetVmi(input(v, { action: { kind: 'cleanup', failed: false } }));
    expect(out.metadata.labels).toEqual({ 'kubevirt.io/nodeName': 'a' });
    expect(out.metadata.annotations).toEqual({});
    expect(targetVmi(input(v, { action: { kind: 'cleanup', failed: false }, actionDone: false }))).toEqual(v);
  });

  it('fails a VMI that succeeded after a failed post-copy', () => {
    const v = vmi(st({ endTimestamp: T1, failed: true }), 'Succeeded');
    const out = targetVmi(
      input(v, { domain: dom('Paused', 'PostcopyFailed'), action: { kind: 'cleanup', failed: true } }),
    );
    expect(out.status?.phase).toBe('Failed');
  });

  it('reports nothing for a failed migration', () => {
    const v = vmi(st({ startTimestamp: T0, failed: true }));
    expect(targetVmi(input(v, { domain: dom('Running'), action: { kind: 'none' } }))).toEqual(v);
  });
});

describe('TARGET_PATCH_SCOPE', () => {
  it('patches the take-over: labels, nodeName and migrationState, nothing else', () => {
    const v = vmi(st({ startTimestamp: T0, endTimestamp: T1, targetNodeAddress: '10.0.0.2' }));
    v.status = { ...v.status, guestOSInfo: { name: 'old' } };
    const out = targetVmi(input(v, { domain: dom('Running', 'Unknown', T1), action: { kind: 'finalize' } }));
    out.status = { ...out.status, guestOSInfo: { name: 'not the target handler’s' } };
    const patch = scopedMergePatch(v, out, TARGET_PATCH_SCOPE);
    expect(patch).toMatchObject({
      metadata: { labels: { 'kubevirt.io/nodeName': 'b' } },
      status: {
        nodeName: 'b',
        migrationTransport: 'Unix',
        launcherContainerImageVersion: null,
        conditions: [],
      },
    });
    expect((patch?.['status'] as Record<string, unknown>)['guestOSInfo']).toBeUndefined();
  });
});
