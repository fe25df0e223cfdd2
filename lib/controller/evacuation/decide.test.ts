/**
 * The evacuation decision for one node as tables (kubevirt evacuation_test.go, tag v1.6.2): which VMIs get a
 * migration, which are reported as not migratable, and when the node is looked at again.
 */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { MigrationPhase } from '../../kubevirt/v1/migration.ts';
import type { EvictionStrategy } from '../../kubevirt/v1/vmi-spec.ts';
import {
  T0,
  vmi,
  vmiDeleting,
  withPhase,
  withVmiCondition,
  type Option,
} from '../../kubevirt/testing/objects.ts';
import { migration, withMigrationPhase } from '../migration/testing/migrations.ts';
import {
  decideEvacuation,
  NO_SLOT_RETRY_MS,
  NOT_MIGRATABLE_RETRY_MS,
  type EvacuationInput,
  type VmiOnNode,
} from './decide.ts';
import { newEvacuationMigration } from './new-migration.ts';

const NODE = 'node01';
const DRAIN = { key: 'kubevirt.io/drain', effect: 'NoSchedule' };
type VmiOpt = Option<VirtualMachineInstance>;

const named =
  (name: string): VmiOpt =>
  (v) => {
    v.metadata.name = name;
  };
const onNode =
  (node: string): VmiOpt =>
  (v) => {
    (v.status ??= {}).nodeName = node;
  };
const evacuating =
  (node = NODE): VmiOpt =>
  (v) => {
    (v.status ??= {}).evacuationNodeName = node;
  };
const strategy =
  (s: EvictionStrategy): VmiOpt =>
  (v) => {
    v.spec.evictionStrategy = s;
  };
const migratable = withVmiCondition('LiveMigratable', 'True');
const noConditions: VmiOpt = (v) => {
  (v.status ??= {}).conditions = [];
};
const notMigratable = [noConditions, withVmiCondition('LiveMigratable', 'False')];
const migratingSince =
  (start: string, end?: string): VmiOpt =>
  (v) => {
    (v.status ??= {}).migrationState = {
      startTimestamp: start,
      ...(end !== undefined && { endTimestamp: end }),
    };
  };

/** A running VMI on NODE, LiveMigrate and live-migratable, marked for evacuation from NODE. */
const marked = (name: string, ...opts: VmiOpt[]): VirtualMachineInstance =>
  vmi(
    named(name),
    withPhase('Running'),
    onNode(NODE),
    strategy('LiveMigrate'),
    migratable,
    evacuating(),
    ...opts,
  );

const mig = (vmiName: string, phase?: MigrationPhase): VirtualMachineInstanceMigration =>
  migration(
    (m) => {
      m.metadata.name = `mig-${vmiName}`;
      m.spec.vmiName = vmiName;
    },
    ...(phase === undefined ? [] : [withMigrationPhase(phase)]),
  );

const onNodeVmis = (...vmis: VirtualMachineInstance[]): VmiOnNode[] =>
  vmis.map((v) => ({ vmi: v, activePods: 1 }));

function input(over: Partial<EvacuationInput>): EvacuationInput {
  return {
    node: NODE,
    taints: [],
    drainTaintKey: DRAIN.key,
    vmis: [],
    unfinished: [],
    clusterEvictionStrategy: undefined,
    parallelMigrationsPerCluster: 5,
    parallelOutboundMigrationsPerNode: 2,
    nowMs: T0,
    ...over,
  };
}

interface Row {
  input: Partial<EvacuationInput>;
  migrate: string[];
  notMigratable?: string[];
  requeueAfterMs?: number;
}

const names = (vs: readonly VirtualMachineInstance[]): string[] => vs.map((v) => v.metadata.name ?? '');
const plain = (name: string, ...opts: VmiOpt[]): VirtualMachineInstance =>
  vmi(named(name), withPhase('Running'), onNode(NODE), migratable, ...opts);

describe('decideEvacuation: which VMIs', () => {
  it.each<[string, Row]>([
    [
      'nothing marked, no taint',
      { input: { vmis: onNodeVmis(plain('a', strategy('LiveMigrate'))) }, migrate: [] },
    ],
    ['a VMI marked for this node', { input: { vmis: onNodeVmis(marked('a')) }, migrate: ['a'] }],
    [
      'evacuation cancelled (evacuationNodeName cleared)',
      { input: { vmis: onNodeVmis(marked('a', evacuating(''))) }, migrate: [] },
    ],
    [
      'marked for another node: it has moved already',
      { input: { vmis: onNodeVmis(marked('a', evacuating('elsewhere'))) }, migrate: [] },
    ],
    [
      'marked and migrating now',
      { input: { vmis: onNodeVmis(marked('a', migratingSince('2025-12-31T23:59:00Z'))) }, migrate: [] },
    ],
    [
      'marked, its last migration ended',
      {
        input: {
          vmis: onNodeVmis(marked('a', migratingSince('2025-12-31T23:00:00Z', '2025-12-31T23:01:00Z'))),
        },
        migrate: ['a'],
      },
    ],
    [
      'the drain taint: every VMI on the node, marked or not',
      {
        input: { taints: [DRAIN], vmis: onNodeVmis(plain('a', strategy('LiveMigrate')), marked('b')) },
        migrate: ['a', 'b'],
      },
    ],
    [
      'the drain taint with effect NoExecute does not count',
      {
        input: {
          taints: [{ ...DRAIN, effect: 'NoExecute' }],
          vmis: onNodeVmis(plain('a', strategy('LiveMigrate'))),
        },
        migrate: [],
      },
    ],
    [
      'a configured drain taint key',
      {
        input: {
          taints: [{ key: 'example.com/drain', effect: 'NoSchedule', value: 'x' }],
          drainTaintKey: 'example.com/drain',
          vmis: onNodeVmis(plain('a', strategy('LiveMigrate'))),
        },
        migrate: ['a'],
      },
    ],
    ['strategy None', { input: { vmis: onNodeVmis(marked('a', strategy('None'))) }, migrate: [] }],
    ['strategy External', { input: { vmis: onNodeVmis(marked('a', strategy('External'))) }, migrate: [] }],
    [
      'no strategy of its own: the cluster says LiveMigrate',
      {
        input: {
          taints: [DRAIN],
          vmis: onNodeVmis(plain('a')),
          clusterEvictionStrategy: 'LiveMigrate',
        },
        migrate: ['a'],
      },
    ],
    ['no strategy anywhere', { input: { taints: [DRAIN], vmis: onNodeVmis(plain('a')) }, migrate: [] }],
    [
      'opted out while the cluster says LiveMigrate',
      {
        input: {
          taints: [DRAIN],
          vmis: onNodeVmis(plain('a', strategy('None'))),
          clusterEvictionStrategy: 'LiveMigrate',
        },
        migrate: [],
      },
    ],
    [
      'LiveMigrateIfPossible and not migratable: silently left',
      {
        input: {
          vmis: onNodeVmis(marked('a', strategy('LiveMigrateIfPossible'), ...notMigratable)),
        },
        migrate: [],
        notMigratable: [],
      },
    ],
    [
      'LiveMigrate and not migratable: reported, looked at again in a minute',
      {
        input: { vmis: onNodeVmis(marked('a', ...notMigratable)) },
        migrate: [],
        notMigratable: ['a'],
        requeueAfterMs: NOT_MIGRATABLE_RETRY_MS,
      },
    ],
    [
      'LiveMigrate without the LiveMigratable condition: reported',
      {
        input: { vmis: onNodeVmis(marked('a', noConditions)) },
        migrate: [],
        notMigratable: ['a'],
        requeueAfterMs: NOT_MIGRATABLE_RETRY_MS,
      },
    ],
    ['a final VMI', { input: { vmis: onNodeVmis(marked('a', withPhase('Succeeded'))) }, migrate: [] }],
    ['a VMI being deleted', { input: { vmis: onNodeVmis(marked('a', vmiDeleting)) }, migrate: [] }],
    [
      'a Pending migration of it exists already',
      { input: { vmis: onNodeVmis(marked('a')), unfinished: [mig('a', 'Pending')] }, migrate: [] },
    ],
    [
      'a migration of it without phase exists already',
      { input: { vmis: onNodeVmis(marked('a')), unfinished: [mig('a')] }, migrate: [] },
    ],
    [
      'a migration of a VMI of the same name in another namespace',
      {
        input: {
          vmis: onNodeVmis(marked('a')),
          unfinished: [migration((m) => ((m.metadata.namespace = 'other'), (m.spec.vmiName = 'a')))],
        },
        migrate: ['a'],
      },
    ],
    [
      'two active Pods: the last migration has not cleaned up',
      { input: { vmis: [{ vmi: marked('a'), activePods: 2 }] }, migrate: [] },
    ],
  ])('%s', (_n, row) => {
    const d = decideEvacuation(input(row.input));
    expect(names(d.migrate)).toEqual(row.migrate);
    expect(names(d.notMigratable)).toEqual(row.notMigratable ?? []);
    expect(d.requeueAfterMs).toBe(row.requeueAfterMs);
  });
});

describe('decideEvacuation: parallel limits', () => {
  const many = (n: number, prefix = 'v'): VirtualMachineInstance[] =>
    Array.from({ length: n }, (_x, i) => marked(`${prefix}${String(i + 1)}`));
  const runningFor = (
    vs: readonly VirtualMachineInstance[],
    phase: MigrationPhase = 'Running',
  ): VirtualMachineInstanceMigration[] => vs.map((v) => mig(v.metadata.name ?? '', phase));

  it.each<[string, Row]>([
    ['the node limit (2) caps a pass', { input: { vmis: onNodeVmis(...many(4)) }, migrate: ['v1', 'v2'] }],
    [
      'the cluster limit caps a pass',
      {
        input: {
          vmis: onNodeVmis(...many(4)),
          parallelOutboundMigrationsPerNode: 10,
          parallelMigrationsPerCluster: 3,
        },
        migrate: ['v1', 'v2', 'v3'],
      },
    ],
    (() => {
      const busy = many(2, 'busy');
      return [
        'running migrations off this node fill the node limit: look again in 5 s',
        {
          input: { vmis: onNodeVmis(...busy, ...many(2)), unfinished: runningFor(busy) },
          migrate: [],
          requeueAfterMs: NO_SLOT_RETRY_MS,
        },
      ] as [string, Row];
    })(),
    (() => {
      const busy = many(4, 'busy');
      return [
        'four of five outbound slots taken: one more (KubeVirt: up to the node maximum)',
        {
          input: {
            vmis: onNodeVmis(...busy, ...many(4)),
            unfinished: runningFor(busy),
            parallelMigrationsPerCluster: 10,
            parallelOutboundMigrationsPerNode: 5,
          },
          migrate: ['v1'],
        },
      ] as [string, Row];
    })(),
    (() => {
      const elsewhere = many(5, 'far').map((v) => ({ ...v, status: { ...v.status, nodeName: 'node02' } }));
      return [
        'five running migrations elsewhere fill the cluster',
        {
          input: { vmis: onNodeVmis(...many(1)), unfinished: runningFor(elsewhere) },
          migrate: [],
          requeueAfterMs: NO_SLOT_RETRY_MS,
        },
      ] as [string, Row];
    })(),
    (() => {
      const waiting = many(10, 'wait');
      return [
        'Pending migrations hold no slot',
        {
          input: {
            vmis: onNodeVmis(...waiting, ...many(1)),
            unfinished: runningFor(waiting, 'Pending'),
            parallelMigrationsPerCluster: 10,
            parallelOutboundMigrationsPerNode: 10,
          },
          migrate: ['v1'],
        },
      ] as [string, Row];
    })(),
    [
      'unmigratable VMIs get the slots the migratable ones leave',
      {
        input: {
          vmis: onNodeVmis(
            marked('n1', noConditions),
            marked('a'),
            marked('n2', noConditions),
            marked('n3', noConditions),
          ),
          parallelOutboundMigrationsPerNode: 3,
        },
        migrate: ['a'],
        notMigratable: ['n1', 'n2'],
      },
    ],
  ])('%s', (_n, row) => {
    const d = decideEvacuation(input(row.input));
    expect(names(d.migrate)).toEqual(row.migrate);
    expect(names(d.notMigratable)).toEqual(row.notMigratable ?? []);
    expect(d.requeueAfterMs).toBe(row.requeueAfterMs);
  });
});

describe('newEvacuationMigration', () => {
  it("names the VMI, the node it leaves, and KubeVirt's generated-name prefix", () => {
    expect(newEvacuationMigration(marked('a'), NODE)).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstanceMigration',
      metadata: {
        generateName: 'kubevirt-evacuation-',
        namespace: 'default',
        labels: { 'kubevirt.io/vmi-name': 'a' },
        annotations: { 'kubevirt.io/evacuationMigration': NODE },
      },
      spec: { vmiName: 'a' },
    });
  });
});
