import { describe, expect, it } from '@jest/globals';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { migrationConfigurationOf } from './config.ts';

const kv = (migrations: unknown): KubeVirt =>
  ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'KubeVirt',
    metadata: { name: 'kv', namespace: 'kubevirt' },
    spec: { configuration: { migrations } },
  }) as KubeVirt;

const DEFAULTS = {
  parallelMigrationsPerCluster: 5,
  parallelOutboundMigrationsPerNode: 2,
  nodeDrainTaintKey: 'kubevirt.io/drain',
  bandwidthPerMigration: '0Mi',
  progressTimeout: 150,
  completionTimeoutPerGiB: 150,
  unsafeMigrationOverride: false,
  allowAutoConverge: false,
  allowPostCopy: false,
};

describe('migrationConfigurationOf', () => {
  it.each<[string, KubeVirt | undefined, Record<string, unknown>]>([
    ['no KubeVirt CR: the defaults', undefined, DEFAULTS],
    ['no migrations section', kv(undefined), DEFAULTS],
    [
      'the CR wins field by field, extra fields kept',
      kv({
        parallelMigrationsPerCluster: 1,
        allowPostCopy: true,
        bandwidthPerMigration: '64Mi',
        network: 'mig',
      }),
      {
        ...DEFAULTS,
        parallelMigrationsPerCluster: 1,
        allowPostCopy: true,
        bandwidthPerMigration: '64Mi',
        network: 'mig',
      },
    ],
    ['a null field keeps the default', kv({ progressTimeout: null }), DEFAULTS],
    ['a section that is no object', kv('x'), DEFAULTS],
  ])('%s', (_n, cr, want) => {
    expect(migrationConfigurationOf(cr)).toEqual(want);
  });
});
