import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { migrationOptions, type MigrationConfiguration, type MigrationOptionsJson } from './options.ts';

const vmi = (o: { config?: MigrationConfiguration; cpuLimit?: string } = {}): VirtualMachineInstance => ({
  metadata: { name: 'v', namespace: 'ns', uid: 'u' },
  spec: {
    domain: { devices: {}, ...(o.cpuLimit !== undefined && { resources: { limits: { cpu: o.cpuLimit } } }) },
  },
  status: {
    migrationState: {
      migrationUid: 'm',
      ...(o.config !== undefined && { migrationConfiguration: { ...o.config } }),
    },
  },
});

const NO_THREADS: MigrationOptionsJson = {
  Bandwidth: '0Mi',
  ProgressTimeout: 150,
  CompletionTimeoutPerGiB: 150,
  UnsafeMigration: false,
  AllowAutoConverge: false,
  AllowPostCopy: false,
  AllowWorkloadDisruption: false,
};
const DEFAULTS: MigrationOptionsJson = { ...NO_THREADS, ParallelMigrationThreads: 8 };

describe('migrationOptions', () => {
  it.each<[string, VirtualMachineInstance, MigrationConfiguration | undefined, MigrationOptionsJson]>([
    ['nothing configured: KubeVirt defaults', vmi(), undefined, DEFAULTS],
    [
      'the cluster configuration',
      vmi(),
      { bandwidthPerMigration: '64Mi', progressTimeout: 30, allowAutoConverge: true },
      { ...DEFAULTS, Bandwidth: '64Mi', ProgressTimeout: 30, AllowAutoConverge: true },
    ],
    [
      "the VMI's (policy) configuration wins over the cluster's",
      vmi({ config: { completionTimeoutPerGiB: 10, unsafeMigrationOverride: true } }),
      { progressTimeout: 30 },
      { ...DEFAULTS, CompletionTimeoutPerGiB: 10, UnsafeMigration: true },
    ],
    [
      'post-copy: no multifd threads, workload disruption follows it',
      vmi({ config: { allowPostCopy: true } }),
      undefined,
      { ...NO_THREADS, AllowPostCopy: true, AllowWorkloadDisruption: true },
    ],
    [
      'post-copy with disruption explicitly off',
      vmi({ config: { allowPostCopy: true, allowWorkloadDisruption: false } }),
      undefined,
      { ...NO_THREADS, AllowPostCopy: true },
    ],
    ['a CPU limit: no multifd threads', vmi({ cpuLimit: '2' }), undefined, NO_THREADS],
    ['a zero CPU limit does not count', vmi({ cpuLimit: '0' }), undefined, DEFAULTS],
  ])('%s', (_, v, cluster, want) => {
    expect(migrationOptions(v, cluster)).toEqual(want);
  });
});
