import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../v1/objects.ts';
import type { AdmissionCause } from './causes.ts';
import { GATES } from './context.ts';
import { ctxWith, inv, ns, req } from './testing/fixtures.ts';
import {
  validateMigrationCreate,
  validateMigrationUpdate,
  type MigrationCreateContext,
} from './migration.ts';

type Migration = VirtualMachineInstanceMigration;

function migration(change: (m: Migration) => void = () => undefined): Migration {
  const m: Migration = {
    metadata: { name: 'mig', namespace: 'ns', labels: { 'kubevirt.io/vmi-name': 'vm' } },
    spec: { vmiName: 'vm' },
    status: { phase: 'Running' },
  };
  change(m);
  return m;
}

const runningVmi: Pick<VirtualMachineInstance, 'status'> = {
  status: { phase: 'Running', conditions: [{ type: 'LiveMigratable', status: 'True' }] },
};

const notMigratable = (reason: string): Pick<VirtualMachineInstance, 'status'> => ({
  status: {
    phase: 'Running',
    conditions: [{ type: 'LiveMigratable', status: 'False', reason, message: 'cannot migrate' }],
  },
});

const other = (phase: 'Succeeded' | 'Scheduling' | undefined, vmiName = 'vm'): Migration =>
  migration((m) => {
    m.metadata = {
      name: `old-${vmiName}`,
      namespace: 'ns',
      uid: 'uid-1',
      labels: { 'kubevirt.io/vmi-name': vmiName },
    };
    m.spec = { vmiName };
    m.status = phase === undefined ? {} : { phase };
  });

const ctx = (over: Partial<MigrationCreateContext> = {}): MigrationCreateContext => ({
  ...ctxWith(),
  vmi: runningVmi,
  migrations: [],
  ...over,
});

describe('validateMigrationCreate', () => {
  it.each<[string, Migration, MigrationCreateContext, AdmissionCause[]]>([
    ['a running, migratable VMI', migration(), ctx(), []],
    ['no VMI name', migration((m) => (m.spec = {})), ctx(), [req('spec.vmiName', 'vmiName is missing')]],
    ['no VMI', migration(), ctx({ vmi: undefined }), [inv('', 'the VMI "ns/vm" does not exist')]],
    [
      'a finished VMI',
      migration(),
      ctx({ vmi: { status: { phase: 'Succeeded' } } }),
      [inv('', 'Cannot migrate VMI in finalized state.')],
    ],
    [
      'a VMI that cannot migrate',
      migration(),
      ctx({ vmi: notMigratable('DisksNotLiveMigratable') }),
      [inv('', 'Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: cannot migrate')],
    ],
    [
      'a decentralized migration of local disks',
      migration((m) => (m.spec.sendTo = { migrationID: 'id', connectURL: 'https://peer' })),
      ctx({
        vmi: notMigratable('DisksNotLiveMigratable'),
        featureGates: new Set([GATES.DECENTRALIZED_LIVE_MIGRATION]),
      }),
      [],
    ],
    [
      'another migration in flight',
      migration(),
      ctx({ migrations: [other('Succeeded'), other('Scheduling'), other('Scheduling', 'vm2')] }),
      [
        inv(
          '',
          'in-flight migration detected. Active migration job (uid-1) is currently already in progress for VMI vm.',
        ),
      ],
    ],
    [
      'another migration without a phase yet',
      migration(),
      ctx({ migrations: [other(undefined)] }),
      [
        inv(
          '',
          'in-flight migration detected. Active migration job (uid-1) is currently already in progress for VMI vm.',
        ),
      ],
    ],
    ['finished migrations of the VMI', migration(), ctx({ migrations: [other('Succeeded')] }), []],
    [
      'a decentralized migration without its gate',
      migration((m) => (m.spec.receive = { migrationID: 'id' })),
      ctx(),
      [ns('', 'DecentralizedLiveMigration feature gate is not enabled in kubevirt resource')],
    ],
    [
      'sendTo and receive with different IDs',
      migration((m) => {
        m.spec.sendTo = { migrationID: 'a', connectURL: 'https://peer' };
        m.spec.receive = { migrationID: 'b' };
      }),
      ctx({ featureGates: new Set([GATES.DECENTRALIZED_LIVE_MIGRATION]) }),
      [inv('', 'sendTo migrationID a does not match receive migrationID b')],
    ],
  ])('%s', (_name, m, c, expected) => {
    expect(validateMigrationCreate(m, c)).toEqual(expected);
  });
});

describe('validateMigrationUpdate', () => {
  it.each<[string, Migration, Migration, AdmissionCause[]]>([
    ['a status change', migration(), migration((m) => (m.status = { phase: 'Succeeded' })), []],
    [
      'a spec change',
      migration(),
      migration((m) => (m.spec.addedNodeSelector = { zone: 'a' })),
      [ns('', "update of Migration object's spec is restricted")],
    ],
    [
      'the selector label removed in flight',
      migration(),
      migration((m) => delete m.metadata.labels),
      [ns('', "selector label can't be removed from an in-flight migration")],
    ],
    [
      'the selector label changed in flight',
      migration(),
      migration((m) => (m.metadata.labels = { 'kubevirt.io/vmi-name': 'other' })),
      [ns('', "selector label can't be modified on an in-flight migration")],
    ],
    [
      'the selector label dropped from the labels in flight',
      migration(),
      migration((m) => (m.metadata.labels = { app: 'x' })),
      [ns('', "selector label can't be modified on an in-flight migration")],
    ],
    [
      'the selector label removed once finished',
      migration(),
      migration((m) => {
        delete m.metadata.labels;
        m.status = { phase: 'Failed' };
      }),
      [],
    ],
  ])('%s', (_name, old, next, expected) => {
    expect(validateMigrationUpdate(old, next)).toEqual(expected);
  });
});
