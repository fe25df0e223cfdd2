import { describe, expect, it } from '@jest/globals';
import { decodeOptions } from './decode-body.ts';
import { goTypeName } from './go-json.ts';
import { ADD_VOLUME_OPTIONS, STOP_OPTIONS } from './option-types.ts';

const PREFIX = 'Can not unmarshal Request body to struct, error: json: cannot unmarshal ';
type Sub = Parameters<typeof decodeOptions>[0];

describe('decodeOptions: what Go decodes', () => {
  it.each<[string, Sub, unknown, unknown]>([
    ['no body', 'start', undefined, {}],
    ['empty body (null)', 'stop', null, {}],
    ['empty object', 'restart', {}, {}],
    ['paused start', 'start', { paused: true, dryRun: ['All'] }, { paused: true, dryRun: ['All'] }],
    [
      'type meta kept',
      'stop',
      { kind: 'StopOptions', apiVersion: 'v1', gracePeriod: 0 },
      {
        kind: 'StopOptions',
        apiVersion: 'v1',
        gracePeriod: 0,
      },
    ],
    ['unknown fields dropped', 'pause', { dryRun: [], force: true }, { dryRun: [] }],
    [
      'field names match ignoring case',
      'stop',
      { GracePeriod: 5, DRYRUN: ['All'] },
      {
        gracePeriod: 5,
        dryRun: ['All'],
      },
    ],
    ['the last key naming a field wins', 'removevolume', { name: 'a', NAME: 'b' }, { name: 'b' }],
    ['null leaves a plain field', 'start', { paused: null }, {}],
    ['null clears a pointer', 'stop', { gracePeriod: 3, GracePeriod: null }, {}],
    ['a null list element is the zero string', 'start', { dryRun: [null] }, { dryRun: [''] }],
    ['negative grace period is an int64', 'restart', { gracePeriodSeconds: -1 }, { gracePeriodSeconds: -1 }],
    [
      'add volume options, nested',
      'addvolume',
      {
        name: 'v',
        disk: { disk: { bus: 'scsi' }, bootOrder: 2 },
        volumeSource: { dataVolume: { name: 'dv' } },
      },
      {
        name: 'v',
        disk: { disk: { bus: 'scsi' }, bootOrder: 2 },
        volumeSource: { dataVolume: { name: 'dv' } },
      },
    ],
    ['enum values are not checked', 'addvolume', { disk: { cache: 'bogus' } }, { disk: { cache: 'bogus' } }],
    ['a null disk is no disk', 'addvolume', { name: 'v', disk: null }, { name: 'v' }],
    [
      'a map decoded twice adds to the first; a null value is the empty string',
      'migrate',
      { addedNodeSelector: { a: '1' }, AddedNodeSelector: { b: null } },
      { addedNodeSelector: { a: '1', b: '' } },
    ],
    ['null clears a map', 'migrate', { addedNodeSelector: { a: '1' }, ADDEDNODESELECTOR: null }, {}],
    ['evacuate cancel options (fork)', 'evacuatecancel', { dryRun: ['All'] }, { dryRun: ['All'] }],
    [
      'add resource claim options: the inline claim request and pod claim (fork)',
      'addresourceclaim',
      {
        name: 'g',
        hostDevice: { claimName: 'g', requestName: 'r' },
        resourceClaim: { resourceClaimTemplateName: 't', hotpluggable: true },
      },
      {
        name: 'g',
        hostDevice: { claimName: 'g', requestName: 'r' },
        resourceClaim: { resourceClaimTemplateName: 't', hotpluggable: true },
      },
    ],
    [
      'a null claim name is none',
      'addresourceclaim',
      { hostDevice: { claimName: null } },
      { hostDevice: {} },
    ],
    [
      'two spellings of a struct field merge',
      'addvolume',
      { disk: { serial: 's' }, Disk: { tag: 't' } },
      { disk: { serial: 's', tag: 't' } },
    ],
  ])('%s', (_name, sub, body, want) => {
    expect(decodeOptions(sub, body)).toEqual(want);
  });

  it.each<[string, Sub, unknown, string]>([
    ['a list body', 'start', [], 'array into Go value of type v1.StartOptions'],
    ['a string body', 'stop', 'x', 'string into Go value of type v1.StopOptions'],
    ['a number body', 'restart', 1, 'number into Go value of type v1.RestartOptions'],
    [
      'paused as a string',
      'start',
      { paused: 'true' },
      'string into Go struct field StartOptions.paused of type bool',
    ],
    [
      'grace period as a string',
      'stop',
      { gracePeriod: '30' },
      'string into Go struct field StopOptions.gracePeriod of type int64',
    ],
    [
      'grace period not whole',
      'stop',
      { gracePeriod: 1.5 },
      'number 1.5 into Go struct field StopOptions.gracePeriod of type int64',
    ],
    [
      'grace period beyond int64',
      'restart',
      { gracePeriodSeconds: 1e19 },
      'number 10000000000000000000 into Go struct field RestartOptions.gracePeriodSeconds of type int64',
    ],
    [
      'dryRun not a list',
      'pause',
      { dryRun: 'All' },
      'string into Go struct field PauseOptions.dryRun of type []string',
    ],
    [
      'dryRun item a number',
      'unpause',
      { dryRun: [1] },
      'number into Go struct field UnpauseOptions.dryRun of type string',
    ],
    [
      'kind as an object',
      'start',
      { kind: {} },
      'object into Go struct field StartOptions.kind of type string',
    ],
    [
      'name as a number',
      'removevolume',
      { name: 7 },
      'number into Go struct field RemoveVolumeOptions.name of type string',
    ],
    [
      'disk as a string',
      'addvolume',
      { disk: 'sda' },
      'string into Go struct field AddVolumeOptions.disk of type v1.Disk',
    ],
    [
      'bus as a number',
      'addvolume',
      { disk: { disk: { bus: 1 } } },
      'number into Go struct field DiskTarget.disk.disk.bus of type v1.DiskBus',
    ],
    [
      'negative boot order',
      'addvolume',
      { disk: { bootOrder: -1 } },
      'number -1 into Go struct field Disk.disk.bootOrder of type uint',
    ],
    [
      'cdrom readonly as a string',
      'addvolume',
      { disk: { cdrom: { readonly: 'yes' } } },
      'string into Go struct field CDRomTarget.disk.cdrom.readonly of type bool',
    ],
    [
      'block size custom',
      'addvolume',
      { disk: { blockSize: { custom: { logical: 'x' } } } },
      'string into Go struct field CustomBlockSize.disk.blockSize.custom.logical of type uint',
    ],
    [
      'claim name as a bool',
      'addvolume',
      { volumeSource: { persistentVolumeClaim: { claimName: true } } },
      'bool into Go struct field PersistentVolumeClaimVolumeSource.volumeSource.persistentVolumeClaim.claimName of type string',
    ],
    [
      'volume source as a list',
      'addvolume',
      { volumeSource: [] },
      'array into Go struct field AddVolumeOptions.volumeSource of type v1.HotplugVolumeSource',
    ],
    [
      'pull policy as a number',
      'addvolume',
      { volumeSource: { containerDisk: { imagePullPolicy: 1 } } },
      'number into Go struct field ContainerDiskSource.volumeSource.containerDisk.imagePullPolicy of type v1.PullPolicy',
    ],
    [
      'the first problem is reported',
      'stop',
      { gracePeriod: 'a', dryRun: 'b' },
      'string into Go struct field StopOptions.gracePeriod of type int64',
    ],
  ])('%s', (_name, sub, body, text) => {
    expect(decodeOptions(sub, body)).toEqual({ status: 400, reason: 'BadRequest', message: PREFIX + text });
  });

  it('prints Go type names', () => {
    expect(goTypeName(STOP_OPTIONS)).toBe('v1.StopOptions');
    expect(goTypeName({ kind: 'slice', of: { kind: 'slice', of: { kind: 'uint' } } })).toBe('[][]uint');
    expect(goTypeName(ADD_VOLUME_OPTIONS)).toBe('v1.AddVolumeOptions');
    expect(goTypeName({ kind: 'map', of: { kind: 'string' } })).toBe('map[string]string');
  });
});
