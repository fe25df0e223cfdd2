import { describe, expect, it } from '@jest/globals';
import type { Volume } from '../../kubevirt/index.ts';
import { newVmi, withVolume } from '../../kubevirt/testing/builders.ts';
import { configVolumeImages } from './config-volumes.ts';
import { ConfigDiskError } from './image.ts';
import { podLayout } from '../../rpc/pod-layout.ts';
import { configDiskImages, diskFiles } from './plan.ts';
import { fakeFs, imageFiles } from './testing/fs.ts';
import type { Disk } from '../converter/index.ts';

const ROOT = '/r';
const PRIVATE = '/r/var/run/kubevirt-private';
const iso = (dir: string, name: string): string => `${PRIVATE}/${dir}/${name}`;

const DISKS = new Map([
  ['cm', iso('config-map-disks', 'cm.iso')],
  ['sec', iso('secret-disks', 'sec.iso')],
  ['dapi', iso('downwardapi-disks', 'dapi.iso')],
  ['unattend', iso('sysprep-disks', 'unattend.iso')],
  ['sa', iso('service-account-disk', 'service-account.iso')],
]);

const run = (volumes: Volume[], files: Record<string, string>, dirs: string[] = []) =>
  configVolumeImages({
    vmi: newVmi(...volumes.map(withVolume)),
    root: ROOT,
    layout: podLayout(ROOT),
    diskFiles: DISKS,
    fs: fakeFs(files, dirs),
  });

describe('configVolumeImages', () => {
  it.each<[string, Volume, string, string]>([
    ['configMap', { name: 'cm', configMap: { name: 'app' } }, `${PRIVATE}/config-map/cm`, 'cfgdata'],
    [
      'secret',
      { name: 'sec', secret: { secretName: 's', volumeLabel: 'MYSEC' } },
      `${PRIVATE}/secret/sec`,
      'MYSEC',
    ],
    ['downwardAPI', { name: 'dapi', downwardAPI: { fields: [] } }, `${PRIVATE}/downwardapi/dapi`, 'cfgdata'],
    [
      'serviceAccount',
      { name: 'sa', serviceAccount: { serviceAccountName: 'x' } },
      `${ROOT}/var/run/secrets/kubernetes.io/serviceaccount`,
      'cfgdata',
    ],
  ])('images the mounted files of a %s volume', (_kind, volume, dir, label) => {
    const files = {
      [`${dir}/key1`]: 'v1',
      [`${dir}/sub/key2`]: 'v2',
      [`${dir}/..2025_01_01_00_00_00.1/key1`]: 'v1',
    };
    const [image, ...rest] = run([volume], files, [`${dir}/..data`]);
    expect(rest).toEqual([]);
    expect(image).toMatchObject({ volume: volume.name, label, isoPath: DISKS.get(volume.name) });
    expect(imageFiles(image)).toEqual({ key1: `<${dir}/key1>`, sub: `<${dir}/sub>` });
  });

  it.each<[string, Volume]>([
    ['Secret', { name: 'unattend', sysprep: { secret: { name: 'win-sysprep' } } }],
    ['ConfigMap', { name: 'unattend', sysprep: { configMap: { name: 'win-sysprep' } } }],
  ])('images a sysprep %s as unattendCD, its answer file in any case', (_kind, volume) => {
    const dir = `${PRIVATE}/sysprep/unattend`;
    const [image] = run([volume], { [`${dir}/Autounattend.xml`]: '<x/>', [`${dir}/setup.cmd`]: 'echo' });
    expect(image).toMatchObject({ volume: 'unattend', label: 'unattendCD', isoPath: DISKS.get('unattend') });
    expect(imageFiles(image)).toEqual({
      'Autounattend.xml': `<${dir}/Autounattend.xml>`,
      'setup.cmd': `<${dir}/setup.cmd>`,
    });
  });

  it.each<[string, Volume, Record<string, string>, RegExp]>([
    [
      'without an answer file',
      { name: 'unattend', sysprep: { secret: { name: 's' } } },
      { [`${PRIVATE}/sysprep/unattend/setup.cmd`]: 'echo' },
      /holds neither autounattend.xml nor unattend.xml/,
    ],
    ['naming no source', { name: 'unattend', sysprep: {} }, {}, /names neither a Secret nor a ConfigMap/],
  ])('refuses a sysprep volume %s, naming it', (_case, volume, files, message) => {
    let err: unknown;
    try {
      run([volume], files);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigDiskError);
    expect(err).toMatchObject({ field: 'spec.volumes[0].sysprep' });
    expect((err as Error).message).toMatch(message);
  });

  it('makes an empty image for an empty mount, and none for a volume no disk uses', () => {
    const images = run(
      [
        { name: 'cm', configMap: { name: 'empty' } },
        { name: 'fs', configMap: { name: 'as-filesystem' } },
      ],
      {},
      [`${PRIVATE}/config-map/cm`],
    );
    expect(images).toEqual([{ volume: 'cm', isoPath: DISKS.get('cm'), label: 'cfgdata', files: [] }]);
  });

  it('names the volume whose mount is missing', () => {
    const volumes: Volume[] = [
      { name: 'root', containerDisk: { image: 'x' } },
      { name: 'sec', secret: { secretName: 's' } },
    ];
    expect(() => run(volumes, {})).toThrow(ConfigDiskError);
    expect(() => run(volumes, {})).toThrow(
      `spec.volumes[1].secret: not mounted: no directory ${PRIVATE}/secret/sec`,
    );
  });
});

describe('configDiskImages', () => {
  it('lists the cloud-init image first, then the config volumes, at the paths of the domain disks', () => {
    const vmi = newVmi(
      withVolume({ name: 'cm', configMap: { name: 'app' } }),
      withVolume({ name: 'ci', cloudInitNoCloud: { userData: 'u' } }),
    );
    const disk = (name: string, file: string): Disk =>
      ({ alias: { name, userDefined: true }, source: { file } }) as Disk;
    const files = diskFiles([disk('cm', DISKS.get('cm') ?? ''), disk('ci', '/e/noCloud.iso')]);
    const images = configDiskImages({
      vmi,
      ctx: { layout: podLayout(ROOT) },
      diskFiles: files,
      fs: fakeFs({ [`${PRIVATE}/config-map/cm/a`]: 'a' }),
    });
    expect(images.map((i) => [i.volume, i.isoPath, i.label])).toEqual([
      ['ci', '/e/noCloud.iso', 'cidata'],
      ['cm', DISKS.get('cm'), 'cfgdata'],
    ]);
  });
});
