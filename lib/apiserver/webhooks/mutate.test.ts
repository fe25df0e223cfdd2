import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../../kubevirt/defaults/cluster.ts';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { FINALIZERS, LABELS } from '../../kubevirt/labels.ts';
import { vm, vmi, withPhase } from '../../kubevirt/testing/objects.ts';
import {
  migrationCreatePatch,
  mutateMigration,
  mutateVm,
  mutateVmi,
  partsPatch,
  type MutateContext,
} from './mutate.ts';
import type { AdmissionRequest, JsonPatchOp } from '../../kubevirt/admission/review.ts';

const ctx = (own = false): MutateContext => ({
  defaults: DEFAULT_CLUSTER_DEFAULTS,
  now: '2026-12-02T00:00:00Z',
  uuid: () => '11111111-2222-4333-8444-555555555555',
  fromOwnServiceAccount: own,
});
const req = (
  operation: AdmissionRequest['operation'],
  object: object,
  oldObject?: object,
): AdmissionRequest => ({
  uid: 'r1',
  operation,
  userInfo: { username: 'alice' },
  object: object as Record<string, unknown>,
  ...(oldObject !== undefined && { oldObject: oldObject as Record<string, unknown> }),
});
/** The object after the verdict's patch (the ops add whole top-level parts). */
function patched<T extends object>(obj: T, patch: readonly JsonPatchOp[] | undefined): T {
  const out = structuredClone(obj) as Record<string, unknown>;
  for (const op of patch ?? []) out[op.path.slice(1)] = op.value;
  return out as T;
}

describe('partsPatch', () => {
  it('adds only the parts that changed', () => {
    expect(
      partsPatch({ metadata: { a: 1 }, spec: { b: 1 } }, { metadata: { a: 1 }, spec: { b: 2 }, status: {} }),
    ).toEqual([
      { op: 'add', path: '/spec', value: { b: 2 } },
      { op: 'add', path: '/status', value: {} },
    ]);
    expect(partsPatch({ spec: { b: 1 } }, { spec: { b: 1 } })).toEqual([]);
  });
});

describe('mutateVm', () => {
  it('on create: the controller finalizer, firmware ids and the machine type', () => {
    const v = vm();
    v.metadata.finalizers = [];
    const verdict = mutateVm(req('CREATE', v), ctx());
    expect(verdict.allowed).toBe(true);
    if (!verdict.allowed) return;
    const out = patched(v, verdict.patch);
    expect(out.metadata.finalizers).toEqual([FINALIZERS.VIRTUAL_MACHINE_CONTROLLER]);
    expect(out.spec.template.spec.domain.firmware).toMatchObject({
      uuid: '11111111-2222-4333-8444-555555555555',
      serial: '11111111-2222-4333-8444-555555555555',
    });
    expect(out.spec.template.spec.domain.machine).toEqual({ type: 'q35' });
  });

  it('on update: no new firmware ids; nothing to patch once defaulted', () => {
    const v = vm();
    const first = mutateVm(req('UPDATE', v, v), ctx());
    if (!first.allowed) throw new Error('denied');
    const out = patched(v, first.patch);
    expect(out.spec.template.spec.domain.firmware?.uuid).toBeUndefined();
    expect(mutateVm(req('UPDATE', out, out), ctx())).toEqual({ allowed: true, patch: [] });
  });

  it('adds no finalizer to a VM being deleted', () => {
    const v = vm();
    v.metadata.finalizers = [];
    v.metadata.deletionTimestamp = '2026-12-02T00:00:00Z';
    const verdict = mutateVm(req('UPDATE', v, v), ctx());
    if (!verdict.allowed) throw new Error('denied');
    expect(patched(v, verdict.patch).metadata.finalizers).toEqual([]);
  });
});

describe('mutateVmi', () => {
  it('on create: KubeVirt defaults, the finalizer, phase Pending with its time', () => {
    const v = vmi();
    delete v.status;
    v.metadata.finalizers = [];
    const verdict = mutateVmi(req('CREATE', v), ctx());
    if (!verdict.allowed) throw new Error('denied');
    const out = patched(v, verdict.patch);
    expect(out.metadata.finalizers).toContain(FINALIZERS.VIRTUAL_MACHINE_INSTANCE);
    expect(out.status?.phase).toBe('Pending');
    expect(out.status?.phaseTransitionTimestamps).toEqual([
      { phase: 'Pending', phaseTransitionTimestamp: '2026-12-02T00:00:00Z' },
    ]);
    expect(out.spec.domain.machine).toEqual({ type: 'q35' });
  });

  it.each<[string, object, object]>([
    [
      'synictimer',
      { synictimer: {} },
      { synictimer: { enabled: true }, synic: { enabled: true }, vpindex: { enabled: true } },
    ],
    ['evmcs', { evmcs: {} }, { evmcs: { enabled: true }, vapic: { enabled: true } }],
  ])('on create: the Hyper-V enlightenments %s needs are switched on', (_, hyperv, expected) => {
    const v = vmi();
    v.spec.domain.features = { hyperv };
    const verdict = mutateVmi(req('CREATE', v), ctx());
    if (!verdict.allowed) throw new Error('denied');
    expect(patched(v, verdict.patch).spec.domain.features?.hyperv).toEqual(expected);
  });

  it("on update: a user's status change is undone, ours is kept, a spec-only change passes", () => {
    const old = vmi(withPhase('Running'));
    const changed = vmi(withPhase('Failed'));
    expect(mutateVmi(req('UPDATE', changed, old), ctx())).toEqual({
      allowed: true,
      patch: [{ op: 'add', path: '/status', value: old.status }],
    });
    expect(mutateVmi(req('UPDATE', changed, old), ctx(true))).toEqual({ allowed: true });
    expect(mutateVmi(req('UPDATE', old, old), ctx())).toEqual({ allowed: true });
  });
});

describe('migrationCreatePatch', () => {
  const VMI_NAME = LABELS.MIGRATION_SELECTOR;
  const MIGRATION = FINALIZERS.MIGRATION;
  const migration = (
    metadata: VirtualMachineInstanceMigration['metadata'],
  ): VirtualMachineInstanceMigration => ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name: 'mig', namespace: 'ns', ...metadata },
    spec: { vmiName: 'testvmi' },
  });
  type Meta = VirtualMachineInstanceMigration['metadata'];

  it.each<[string, Meta, Meta | undefined]>([
    ['none yet: both added', {}, { labels: { [VMI_NAME]: 'testvmi' }, finalizers: [MIGRATION] }],
    [
      "the creator's labels and finalizers are kept",
      { labels: { test: 'test' }, finalizers: ['example.com/keep'] },
      { labels: { test: 'test', [VMI_NAME]: 'testvmi' }, finalizers: ['example.com/keep', MIGRATION] },
    ],
    [
      'a selector label naming another VMI is set to spec.vmiName',
      { labels: { [VMI_NAME]: 'other' }, finalizers: [MIGRATION] },
      { labels: { [VMI_NAME]: 'testvmi' }, finalizers: [MIGRATION] },
    ],
    [
      'a finalizer the creator listed is listed once',
      { finalizers: [MIGRATION, 'example.com/keep'] },
      { labels: { [VMI_NAME]: 'testvmi' }, finalizers: [MIGRATION, 'example.com/keep'] },
    ],
    [
      'both already there: no patch',
      { labels: { [VMI_NAME]: 'testvmi' }, finalizers: [MIGRATION] },
      undefined,
    ],
  ])('%s', (_name, given, expected) => {
    const m = migration(given);
    const ops =
      expected === undefined
        ? []
        : [{ op: 'add', path: '/metadata', value: { name: 'mig', namespace: 'ns', ...expected } }];
    expect(migrationCreatePatch(m)).toEqual(ops);
  });

  it('is answered on create only', () => {
    const m = migration({});
    expect(mutateMigration(req('CREATE', m))).toEqual({ allowed: true, patch: migrationCreatePatch(m) });
    expect(mutateMigration(req('UPDATE', m, m))).toEqual({ allowed: true });
  });
});
