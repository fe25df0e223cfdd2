import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineVolumeRequest } from '../../../kubevirt/index.ts';
import { badRequest, unmarshalFailed, type Refusal } from '../refusal.ts';
import {
  addVolumeRequest,
  HOTPLUG_NOT_ENABLED,
  NO_BODY,
  removeVolumeRequest,
  volumeDryRun,
  type FeatureGates,
} from './volume-options.ts';

const legacy: FeatureGates = new Set(['HotplugVolumes']);
const declarative: FeatureGates = new Set(['DeclarativeHotplugVolumes']);
const none: FeatureGates = new Set(['Snapshot']);
const disk = { disk: { bus: 'scsi' } } as const;

describe('addVolumeRequest', () => {
  it.each<[string, unknown, FeatureGates, VirtualMachineVolumeRequest | Refusal]>([
    ['no hotplug gate', { name: 'v' }, none, badRequest(HOTPLUG_NOT_ENABLED)],
    ['no body at all', undefined, legacy, badRequest(NO_BODY)],
    ['an empty body', null, legacy, badRequest('AddVolumeOptions requires name to be set')],
    [
      'an empty name',
      { name: '', disk, volumeSource: {} },
      declarative,
      badRequest('AddVolumeOptions requires name to be set'),
    ],
    [
      'no disk',
      { name: 'v', volumeSource: {} },
      legacy,
      badRequest('AddVolumeOptions requires disk to not be nil'),
    ],
    [
      'a null disk',
      { name: 'v', disk: null },
      legacy,
      badRequest('AddVolumeOptions requires disk to not be nil'),
    ],
    [
      'no source',
      { name: 'v', disk },
      legacy,
      badRequest('AddVolumeOptions requires VolumeSource to not be nil'),
    ],
    [
      'a body that does not decode',
      { name: 'v', disk: [] },
      legacy,
      unmarshalFailed(
        'json: cannot unmarshal array into Go struct field AddVolumeOptions.disk of type v1.Disk',
      ),
    ],
    [
      'a claim: disk named after the volume, claim hotpluggable, dryRun kept',
      {
        name: 'v',
        disk: { name: 'other', ...disk },
        volumeSource: { persistentVolumeClaim: { claimName: 'c' } },
        dryRun: ['All'],
      },
      legacy,
      {
        addVolumeOptions: {
          name: 'v',
          disk: { name: 'v', ...disk },
          volumeSource: { persistentVolumeClaim: { claimName: 'c', hotpluggable: true } },
          dryRun: ['All'],
        },
      },
    ],
    [
      'a DataVolume',
      { name: 'v', disk: {}, volumeSource: { dataVolume: { name: 'dv', hotpluggable: false } } },
      declarative,
      {
        addVolumeOptions: {
          name: 'v',
          disk: { name: 'v' },
          volumeSource: { dataVolume: { name: 'dv', hotpluggable: true } },
        },
      },
    ],
    [
      'a containerDisk (Deckhouse fork)',
      {
        name: 'v',
        disk: { cdrom: { bus: 'scsi' } },
        volumeSource: { containerDisk: { image: 'reg/img:1' } },
      },
      legacy,
      {
        addVolumeOptions: {
          name: 'v',
          disk: { name: 'v', cdrom: { bus: 'scsi' } },
          volumeSource: { containerDisk: { image: 'reg/img:1', hotpluggable: true } },
        },
      },
    ],
    [
      'both DataVolume and claim: only the DataVolume is marked',
      {
        name: 'v',
        disk: {},
        volumeSource: { dataVolume: { name: 'dv' }, persistentVolumeClaim: { claimName: 'c' } },
      },
      legacy,
      {
        addVolumeOptions: {
          name: 'v',
          disk: { name: 'v' },
          volumeSource: {
            dataVolume: { name: 'dv', hotpluggable: true },
            persistentVolumeClaim: { claimName: 'c' },
          },
        },
      },
    ],
    [
      'a source without its name reads it as empty',
      { name: 'v', disk: {}, volumeSource: { persistentVolumeClaim: {} } },
      legacy,
      {
        addVolumeOptions: {
          name: 'v',
          disk: { name: 'v' },
          volumeSource: { persistentVolumeClaim: { claimName: '', hotpluggable: true } },
        },
      },
    ],
    [
      'an empty source passes',
      { name: 'v', disk: {}, volumeSource: {} },
      legacy,
      { addVolumeOptions: { name: 'v', disk: { name: 'v' }, volumeSource: {} } },
    ],
  ])('%s', (_name, body, gates, want) => {
    expect(addVolumeRequest(body, gates)).toEqual(want);
  });
});

describe('removeVolumeRequest', () => {
  it.each<[string, unknown, FeatureGates, VirtualMachineVolumeRequest | Refusal]>([
    ['no hotplug gate', { name: 'v' }, none, badRequest(HOTPLUG_NOT_ENABLED)],
    ['no body at all', undefined, declarative, badRequest(NO_BODY)],
    ['no name', {}, legacy, badRequest('RemoveVolumeOptions requires name to be set')],
    [
      'a name that does not decode',
      { name: ['v'] },
      legacy,
      unmarshalFailed(
        'json: cannot unmarshal array into Go struct field RemoveVolumeOptions.name of type string',
      ),
    ],
    [
      'a name',
      { name: 'v', dryRun: ['All'] },
      legacy,
      { removeVolumeOptions: { name: 'v', dryRun: ['All'] } },
    ],
  ])('%s', (_name, body, gates, want) => {
    expect(removeVolumeRequest(body, gates)).toEqual(want);
  });
});

describe('volumeDryRun', () => {
  it.each<[string, VirtualMachineVolumeRequest, readonly string[] | undefined]>([
    ['none', { removeVolumeOptions: { name: 'v' } }, undefined],
    ['All', { removeVolumeOptions: { name: 'v', dryRun: ['All'] } }, ['All']],
    ['not starting with All', { removeVolumeOptions: { name: 'v', dryRun: ['Some', 'All'] } }, undefined],
    ['empty', { removeVolumeOptions: { name: 'v', dryRun: [] } }, undefined],
  ])('%s', (_name, req, want) => {
    expect(volumeDryRun(req)).toEqual(want);
  });
});
