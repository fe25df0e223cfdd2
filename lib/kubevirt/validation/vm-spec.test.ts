import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import type { AdmissionCause } from './causes.ts';
import { GATES } from './context.ts';
import { ctxWith, inv, raw, req } from './testing/fixtures.ts';
import { validVm, type VmChange } from './testing/vms.ts';
import { validateVm, type VmContext } from './vm.ts';

const ctx: VmContext = { ...ctxWith(), isKubevirtServiceAccount: false };
const DV = 'spec.dataVolumeTemplate[0]';

const dvTemplate =
  (spec: Record<string, unknown>, name = 'root-dv'): VmChange =>
  (vm) => {
    vm.spec.dataVolumeTemplates = [{ metadata: { name }, spec }];
    vm.spec.template.spec.volumes = [{ name: 'root', dataVolume: { name: 'root-dv' } }];
  };

const STORAGE = { storage: { resources: { requests: { storage: '10Gi' } } } };

describe('validateVm: run strategy, live update, DataVolume templates', () => {
  it.each<[string, VmChange, AdmissionCause[]]>([
    ['runStrategy Always', () => undefined, []],
    ['running true', (vm) => (vm.spec = { running: true, template: vm.spec.template }), []],
    [
      'running and runStrategy',
      (vm) => (vm.spec.running = true),
      [
        inv(
          'spec.running',
          'Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead',
        ),
      ],
    ],
    ['neither', (vm) => delete vm.spec.runStrategy, [inv('spec.running', 'RunStrategy must be specified')]],
    [
      'an unknown run strategy',
      (vm) => (vm.spec.runStrategy = raw('Sometimes')),
      [inv('spec.runStrategy', 'Invalid RunStrategy (Sometimes)')],
    ],
    [
      'WaitAsReceiver without DecentralizedLiveMigration',
      (vm) => (vm.spec.runStrategy = 'WaitAsReceiver'),
      [
        inv(
          'spec.runStrategy',
          'Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource',
        ),
      ],
    ],
    [
      'more sockets than maxSockets (both KubeVirt rules report it)',
      (vm) => (vm.spec.template.spec.domain.cpu = { sockets: 4, maxSockets: 2, cores: 1, threads: 1 }),
      [
        inv(
          'spec.template.spec.domain.cpu.sockets',
          'Number of sockets in CPU topology is greater than the maximum sockets allowed',
        ),
        inv(
          'spec.template.spec.domain.cpu.sockets',
          'Number of sockets in CPU topology is greater than the maximum sockets allowed',
        ),
      ],
    ],
    [
      'maxGuest of 4Gi',
      (vm) => (vm.spec.template.spec.domain.memory = { guest: '1Gi', maxGuest: '4Gi' }),
      [],
    ],
    [
      'maxGuest below the guest memory',
      (vm) => (vm.spec.template.spec.domain.memory = { guest: '1Gi', maxGuest: '512Mi' }),
      [
        inv(
          'spec.template.spec.domain.memory.guest',
          'Guest memory is greater than the configured maxGuest memory',
        ),
      ],
    ],
    [
      'a DataVolume template from a registry',
      dvTemplate({ ...STORAGE, source: { registry: { url: 'docker://x' } } }),
      [],
    ],
    [
      'an externally populated DataVolume',
      dvTemplate({ pvc: { dataSourceRef: { kind: 'VolumeSnapshot', name: 's' } } }),
      [],
    ],
    [
      'a DataVolume template without a name',
      dvTemplate({ ...STORAGE, source: { blank: {} } }, ''),
      [req(`${DV}.name`, `'name' field must not be empty for DataVolumeTemplate entry ${DV}.name.`)],
    ],
    [
      'neither pvc nor storage',
      dvTemplate({ source: { blank: {} } }),
      [inv(`${DV}.PVC.Storage`, 'Missing Data volume PVC or Storage')],
    ],
    [
      'pvc and storage',
      dvTemplate({ pvc: {}, storage: {}, source: { blank: {} } }),
      [inv(`${DV}.PVC.Storage`, 'Duplicate storage definition, both target storage and target pvc defined')],
    ],
    [
      'a populator and a source',
      dvTemplate({
        storage: { dataSource: { kind: 'PersistentVolumeClaim', name: 'p' } },
        source: { blank: {} },
      }),
      [inv(`${DV}.source`, 'External population is incompatible with Source and SourceRef')],
    ],
    [
      'no data at all',
      dvTemplate(STORAGE),
      [
        inv(
          `${DV}.source.sourceRef`,
          'Data volume should have either Source, SourceRef, or be externally populated',
        ),
      ],
    ],
    [
      'an empty source',
      dvTemplate({ ...STORAGE, source: {} }),
      [inv(`${DV}.source`, 'Missing dataVolume valid source')],
    ],
    [
      'two source kinds',
      dvTemplate({ ...STORAGE, source: { blank: {}, http: { url: 'https://x' } } }),
      [inv(`${DV}.source`, 'Multiple dataVolume sources')],
    ],
    [
      'a DataVolume template no volume uses',
      (vm) =>
        (vm.spec.dataVolumeTemplates = [
          {
            metadata: { name: 'lonely' },
            spec: { ...STORAGE, sourceRef: { kind: 'DataSource', name: 'd' } },
          },
        ]),
      [req(DV, `DataVolumeTemplate entry ${DV} must be referenced in the VMI template's 'volumes' list`)],
    ],
  ])('%s', (_name, change, expected) => {
    expect(validateVm(validVm(change), undefined, ctx)).toEqual(expected);
  });

  it('WaitAsReceiver with DecentralizedLiveMigration', () => {
    const vm = validVm((v) => (v.spec.runStrategy = 'WaitAsReceiver'));
    expect(
      validateVm(vm, undefined, {
        ...ctxWith([GATES.DECENTRALIZED_LIVE_MIGRATION]),
        isKubevirtServiceAccount: false,
      }),
    ).toEqual([]);
  });

  it('no live-update checks under the Stage rollout strategy', () => {
    const vm = validVm((v) => (v.spec.template.spec.domain.memory = { guest: '1Gi', maxGuest: '512Mi' }));
    const stage = { ...ctx, cluster: { ...DEFAULT_CLUSTER_DEFAULTS, vmRolloutStrategy: 'Stage' as const } };
    expect(validateVm(vm, undefined, stage)).toEqual([]);
  });
});
