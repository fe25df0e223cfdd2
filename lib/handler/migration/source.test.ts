import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle, MigrationMetadataJson } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import { scopedMergePatch } from '../../kernel/controller/merge-patch.ts';
import { SOURCE_PATCH_SCOPE, sourceAction, sourceVmi, type SourceAction } from './source.ts';

type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const UP: LauncherReach = { initialized: true, unresponsive: false };
const PORTS = { '0': 4135, '49152': 4136 };

const vmi = (state: State): VirtualMachineInstance => ({
  metadata: { name: 'v', namespace: 'ns', uid: 'u' },
  spec: { domain: { devices: {} } },
  status: { phase: 'Running', nodeName: 'a', migrationState: state },
});
const st = (o: Partial<State> = {}): State => ({ sourceNode: 'a', targetNode: 'b', migrationUid: 'm', ...o });
const ready = (o: Partial<State> = {}): State =>
  st({ targetNodeAddress: '10.0.0.2', targetDirectMigrationNodePorts: PORTS, ...o });
const dom = (s: LifeCycle, reason = 'Unknown', meta?: Partial<MigrationMetadataJson>): DomainJson =>
  testDomain(s, reason, (d) => {
    if (meta === undefined) return;
    d.Spec.Metadata = {
      KubeVirt: {
        UID: 'u',
        GracePeriod: { DeletionGracePeriodSeconds: 30 },
        Migration: { UID: 'm', ...meta },
      },
    };
  });

describe('sourceAction', () => {
  it.each<[string, State, DomainJson | undefined, LauncherReach, SourceAction['kind']]>([
    ['no domain', ready(), undefined, UP, 'none'],
    ['domain shut off', ready(), dom('Shutoff', 'Migrated'), UP, 'none'],
    ['launcher not ready', ready(), dom('Running'), { initialized: false, unresponsive: false }, 'wait'],
    ['launcher gone', ready(), dom('Running'), { initialized: true, unresponsive: true }, 'unresponsive'],
    ['target not published yet', st(), dom('Running'), UP, 'wait'],
    ['address without ports', st({ targetNodeAddress: '10.0.0.2' }), dom('Running'), UP, 'wait'],
    ['target ready: start', ready(), dom('Running'), UP, 'start'],
    ['started (VMI)', ready({ startTimestamp: T0 }), dom('Running'), UP, 'none'],
    ['started (domain)', ready(), dom('Running', 'Unknown', { StartTimestamp: T0 }), UP, 'none'],
    ['abort requested', ready({ startTimestamp: T0, abortRequested: true }), dom('Running'), UP, 'cancel'],
    ['abort under way', ready({ abortRequested: true, abortStatus: 'Aborting' }), dom('Running'), UP, 'none'],
    ['abort done', ready({ abortRequested: true, abortStatus: 'Succeeded' }), dom('Running'), UP, 'none'],
    [
      'abort failed: ask again',
      ready({ abortRequested: true, abortStatus: 'Failed' }),
      dom('Running'),
      UP,
      'cancel',
    ],
  ])('%s', (...[, state, domain, launcher, want]) => {
    expect(sourceAction({ vmi: vmi(state), domain, launcher }).kind).toBe(want);
  });

  it('starts towards the published target with the options', () => {
    const a = sourceAction({
      vmi: vmi(ready()),
      domain: dom('Running'),
      launcher: UP,
      cluster: { progressTimeout: 5 },
    });
    expect(a).toMatchObject({
      kind: 'start',
      targetAddress: '10.0.0.2',
      targetPorts: PORTS,
      options: { ProgressTimeout: 5 },
    });
  });
});

describe('sourceVmi', () => {
  const NOW = Date.parse('2026-01-01T00:00:30Z');

  it('copies the running migration', () => {
    const out = sourceVmi({
      vmi: vmi(ready()),
      domain: dom('Running', 'Unknown', { StartTimestamp: T0, Mode: 'PreCopy' }),
      nowMs: NOW,
    });
    expect(out.vmi.status?.migrationState).toEqual({
      ...ready(),
      startTimestamp: T0,
      failed: false,
      mode: 'PreCopy',
    });
    expect(out.vmi.status?.phase).toBe('Running');
    expect(out.recheckAfterMs).toBeUndefined();
  });

  it('ignores the record of another migration', () => {
    const d = dom('Running', 'Unknown', { StartTimestamp: T0 });
    if (d.Spec.Metadata?.KubeVirt.Migration) d.Spec.Metadata.KubeVirt.Migration.UID = 'old';
    expect(sourceVmi({ vmi: vmi(ready()), domain: d, nowMs: NOW }).vmi).toEqual(vmi(ready()));
  });

  it('copies a failure with its end and reason; the VMI stays', () => {
    const d = dom('Running', 'Unknown', {
      StartTimestamp: T0,
      EndTimestamp: T1,
      Failed: true,
      FailureReason: 'boom',
    });
    const out = sourceVmi({ vmi: vmi(ready()), domain: d, nowMs: NOW });
    expect(out.vmi.status?.migrationState).toMatchObject({
      startTimestamp: T0,
      endTimestamp: T1,
      failed: true,
      failureReason: 'boom',
    });
    expect(out.vmi.status?.phase).toBe('Running');
    expect(out.recheckAfterMs).toBeUndefined();
  });

  it('copies a successful abort with its end, and the abort status', () => {
    const d = dom('Running', 'Unknown', { StartTimestamp: T0, EndTimestamp: T1, AbortStatus: 'Succeeded' });
    const out = sourceVmi({ vmi: vmi(ready({ abortRequested: true })), domain: d, nowMs: NOW });
    expect(out.vmi.status?.migrationState).toMatchObject({
      endTimestamp: T1,
      abortStatus: 'Succeeded',
      failed: false,
    });
  });

  it('does not copy the end of a success: the target acknowledges it', () => {
    const d = dom('Running', 'Unknown', { StartTimestamp: T0, EndTimestamp: T1 });
    expect(
      sourceVmi({ vmi: vmi(ready()), domain: d, nowMs: NOW }).vmi.status?.migrationState?.endTimestamp,
    ).toBeUndefined();
  });

  it('fails the VMI when there is no target to hand it to', () => {
    const out = sourceVmi({ vmi: vmi(ready({ targetNode: '' })), domain: dom('Running'), nowMs: NOW });
    expect(out.vmi.status?.phase).toBe('Failed');
    expect(out.vmi.status?.migrationState).toMatchObject({
      completed: true,
      failed: true,
      endTimestamp: '2026-01-01T00:00:30Z',
    });
  });

  it.each<[string, number, 'Running' | 'Failed', number | undefined]>([
    ['10 s after the end: wait 50 s', Date.parse('2026-01-01T00:01:10Z'), 'Running', 50_000],
    ['58 s after: at least 5 s', Date.parse('2026-01-01T00:01:58Z'), 'Running', 5_000],
    ['61 s after: failed', Date.parse('2026-01-01T00:02:01Z'), 'Failed', undefined],
  ])('ended without the target seeing the domain ready, %s', (_, now, phase, recheck) => {
    const out = sourceVmi({
      vmi: vmi(ready({ startTimestamp: T0, endTimestamp: T1 })),
      domain: dom('Running'),
      nowMs: now,
    });
    expect(out.vmi.status?.phase).toBe(phase);
    expect(out.recheckAfterMs).toBe(recheck);
  });

  it('nothing to wait for once the target saw the domain ready', () => {
    const s = ready({
      startTimestamp: T0,
      endTimestamp: T1,
      targetNodeDomainDetected: true,
      targetNodeDomainReadyTimestamp: T1,
    });
    const out = sourceVmi({ vmi: vmi(s), domain: dom('Running'), nowMs: Date.parse('2026-01-01T00:05:00Z') });
    expect(out).toEqual({ vmi: vmi(s) });
  });
});

describe('SOURCE_PATCH_SCOPE', () => {
  it('patches the phase and migrationState only', () => {
    const v = vmi(ready({ targetNode: '' }));
    const out = sourceVmi({ vmi: v, domain: dom('Running'), nowMs: Date.parse(T1) }).vmi;
    out.status = { ...out.status, nodeName: 'elsewhere' };
    expect(scopedMergePatch(v, out, SOURCE_PATCH_SCOPE)).toEqual({
      status: { phase: 'Failed', migrationState: { completed: true, failed: true, endTimestamp: T1 } },
    });
  });
});
