import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { vm, vmi, withPhase } from '../../../kubevirt/testing/objects.ts';
import { conflict, notFound, unmarshalFailed, type Refusal } from '../refusal.ts';
import { planMigrate, type MigratePlan } from './vm-migrate.ts';

const running = vmi(withPhase('Running'));
const migration = (spec: Record<string, unknown> = {}): MigratePlan['migration'] => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstanceMigration',
  metadata: { generateName: 'kubevirt-migrate-vm-' },
  spec: { vmiName: 'testvm', ...spec },
});

type Row = [
  string,
  VirtualMachine | undefined,
  VirtualMachineInstance | undefined,
  unknown,
  MigratePlan | Refusal,
];

const rows: Row[] = [
  ['no body', vm(), running, null, { migration: migration() }],
  [
    'a node selector and a dry run',
    vm(),
    running,
    { addedNodeSelector: { zone: 'a' }, dryRun: ['All'] },
    { migration: migration({ addedNodeSelector: { zone: 'a' } }), dryRun: ['All'] },
  ],
  [
    'an empty selector and dry run are none',
    vm(),
    running,
    { addedNodeSelector: {}, dryRun: [] },
    { migration: migration() },
  ],
  [
    'a bad body before the missing VM',
    undefined,
    undefined,
    { addedNodeSelector: { zone: 1 } },
    unmarshalFailed(
      'json: cannot unmarshal number into Go struct field MigrateOptions.addedNodeSelector of type string',
    ),
  ],
  [
    'a selector that is no map',
    vm(),
    running,
    { addedNodeSelector: ['zone'] },
    unmarshalFailed(
      'json: cannot unmarshal array into Go struct field MigrateOptions.addedNodeSelector of type map[string]string',
    ),
  ],
  ['no VM', undefined, running, null, notFound('virtualmachine', 'testvm')],
  ['no VMI', vm(), undefined, null, notFound('virtualmachineinstance', 'testvm')],
  [
    'a scheduling VMI',
    vm(),
    vmi(withPhase('Scheduling')),
    null,
    conflict('virtualmachine', 'testvm', 'VM is not running'),
  ],
  ['a VMI without a phase', vm(), vmi(), null, conflict('virtualmachine', 'testvm', 'VM is not running')],
  [
    'a VMI that ended',
    vm(),
    vmi(withPhase('Succeeded')),
    null,
    conflict('virtualmachine', 'testvm', 'VM is not running'),
  ],
];

describe('planMigrate', () => {
  it.each(rows)('%s', (...[, v, i, body, want]: Row) => {
    expect(planMigrate({ name: 'testvm', vm: v, vmi: i, body })).toEqual(want);
  });

  it('answers 409 with KubeVirt’s conflict text', () => {
    expect(planMigrate({ name: 'testvm', vm: vm(), vmi: vmi(), body: null })).toMatchObject({
      status: 409,
      message: 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvm": VM is not running',
    });
  });
});
