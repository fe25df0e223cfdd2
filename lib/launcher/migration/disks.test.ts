import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { newVmi, withVolume } from '../../kubevirt/testing/builders.ts';
import { classifyVolumesForMigration, disksToCopy } from './disks.ts';

const vmiWith = (volumes: Volume[], migrated: string[] = []): VirtualMachineInstance => {
  const vmi = newVmi(...volumes.map(withVolume));
  if (migrated.length > 0) vmi.status = { migratedVolumes: migrated.map((volumeName) => ({ volumeName })) };
  return vmi;
};

interface DiskXml {
  readonly volume: string;
  readonly dev: string;
  readonly type?: string;
  readonly device?: string;
  readonly readOnly?: boolean;
  readonly alias?: string;
}

const domainXml = (disks: DiskXml[]): string =>
  `<domain type="kvm"><name>default_testvmi</name><devices>${disks
    .map(
      (d) =>
        `<disk type="${d.type ?? 'file'}" device="${d.device ?? 'disk'}">` +
        `<target dev="${d.dev}" bus="virtio"/>${d.readOnly === true ? '<readonly/>' : ''}` +
        `<alias name="${d.alias ?? `ua-${d.volume}`}"/></disk>`,
    )
    .join('')}<interface type="ethernet"/></devices></domain>`;

describe('classifyVolumesForMigration', () => {
  it('sorts claims, host disks and generated volumes; other volumes are in no class', () => {
    const vmi = vmiWith(
      [
        { name: 'pvc', persistentVolumeClaim: { claimName: 'c' } },
        { name: 'dv', dataVolume: { name: 'd' } },
        { name: 'moved', persistentVolumeClaim: { claimName: 'm' } },
        { name: 'host-shared', hostDisk: { path: '/h', type: 'Disk', shared: true } },
        { name: 'host-local', hostDisk: { path: '/l', type: 'Disk' } },
        { name: 'host-moved', hostDisk: { path: '/x', type: 'Disk', shared: true } },
        { name: 'cd', containerDisk: { image: 'img' } },
        { name: 'cd-hotplug', containerDisk: { image: 'img', hotpluggable: true } },
        { name: 'ci', cloudInitNoCloud: { userData: '#cloud-config' } },
        { name: 'cfg', cloudInitConfigDrive: { userData: '#cloud-config' } },
        { name: 'cm', configMap: { name: 'm' } },
        { name: 'sec', secret: { secretName: 's' } },
        { name: 'sa', serviceAccount: { serviceAccountName: 'a' } },
        { name: 'dapi', downwardAPI: { fields: [] } },
        { name: 'scratch', emptyDisk: { capacity: '1Gi' } },
        { name: 'eph', ephemeral: { persistentVolumeClaim: { claimName: 'g' } } },
      ],
      ['moved', 'host-moved'],
    );
    expect(Object.fromEntries(classifyVolumesForMigration(vmi))).toEqual({
      pvc: 'shared',
      dv: 'shared',
      moved: 'migrated',
      'host-shared': 'shared',
      'host-moved': 'migrated',
      cd: 'generated',
      'cd-hotplug': 'shared',
      ci: 'generated',
      cfg: 'generated',
      cm: 'generated',
      sec: 'generated',
      sa: 'generated',
      dapi: 'generated',
    });
  });
});

describe('disksToCopy', () => {
  it.each<{ name: string; volumes: Volume[]; migrated?: string[]; disks: DiskXml[]; want: string[] }>([
    { name: 'no disks', volumes: [], disks: [], want: [] },
    {
      name: 'a containerDisk overlay is copied',
      volumes: [{ name: 'root', containerDisk: { image: 'img' } }],
      disks: [{ volume: 'root', dev: 'vda' }],
      want: ['vda'],
    },
    {
      name: 'an emptyDisk is copied',
      volumes: [{ name: 'scratch', emptyDisk: { capacity: '1Gi' } }],
      disks: [{ volume: 'scratch', dev: 'vdb' }],
      want: ['vdb'],
    },
    {
      name: 'a claim stays, in file or block mode',
      volumes: [
        { name: 'fs', persistentVolumeClaim: { claimName: 'a' } },
        { name: 'blk', dataVolume: { name: 'b' } },
      ],
      disks: [
        { volume: 'fs', dev: 'vda' },
        { volume: 'blk', dev: 'vdb', type: 'block' },
      ],
      want: [],
    },
    {
      name: 'a claim among the migrated volumes is copied',
      volumes: [{ name: 'fs', persistentVolumeClaim: { claimName: 'a' } }],
      migrated: ['fs'],
      disks: [{ volume: 'fs', dev: 'vda', type: 'block' }],
      want: ['vda'],
    },
    {
      name: 'a shared host disk stays, one not shared is copied',
      volumes: [
        { name: 'shared', hostDisk: { path: '/s', type: 'Disk', shared: true } },
        { name: 'local', hostDisk: { path: '/l', type: 'DiskOrCreate', capacity: '1Gi' } },
      ],
      disks: [
        { volume: 'shared', dev: 'sda' },
        { volume: 'local', dev: 'sdb' },
      ],
      want: ['sdb'],
    },
    {
      name: 'a CD-ROM is never copied, not even a generated one',
      volumes: [{ name: 'ci', cloudInitNoCloud: { userData: 'x' } }],
      disks: [{ volume: 'ci', dev: 'sda', device: 'cdrom', readOnly: true }],
      want: [],
    },
    {
      name: 'a read-only generated disk is copied, a read-only local one is not',
      volumes: [
        { name: 'cm', configMap: { name: 'm' } },
        { name: 'scratch', emptyDisk: { capacity: '1Gi' } },
      ],
      disks: [
        { volume: 'cm', dev: 'vda', readOnly: true },
        { volume: 'scratch', dev: 'vdb', readOnly: true },
      ],
      want: ['vda'],
    },
    {
      name: 'a network disk is not copied',
      volumes: [{ name: 'net', emptyDisk: { capacity: '1Gi' } }],
      disks: [{ volume: 'net', dev: 'vda', type: 'network' }],
      want: [],
    },
    {
      name: 'a disk without the user alias prefix is matched by its bare alias',
      volumes: [{ name: 'pvc', persistentVolumeClaim: { claimName: 'a' } }],
      disks: [
        { volume: 'pvc', dev: 'vda', alias: 'pvc' },
        { volume: 'other', dev: 'vdb', alias: 'virtio-disk1' },
      ],
      want: ['vdb'],
    },
  ])('$name', (c) => {
    expect(disksToCopy(vmiWith(c.volumes, c.migrated), domainXml(c.disks))).toEqual(c.want);
  });

  const golden = (name: string): [VirtualMachineInstance, string] => {
    const dir = new URL('../converter/testdata/', import.meta.url);
    return [
      JSON.parse(readFileSync(new URL(`${name}.in.json`, dir), 'utf8')) as VirtualMachineInstance,
      readFileSync(new URL(`${name}.domain.xml`, dir), 'utf8'),
    ];
  };

  it.each([
    ['containerdisk-cloudinit', ['vda', 'vdb']],
    // root, raw-block and dv are claims; host is a host disk not shared, scratch an emptyDisk, overlay an
    // ephemeral claim's overlay; install an empty CD-ROM.
    ['persistent-volumes', ['sda', 'vdc', 'vdd']],
    // root's overlay; the hotplugged images are mounted on the target too (ubuntu-iso a CD-ROM besides).
    ['hotplug-image', ['vda']],
  ])('the converter golden %s copies %j', (name, want) => {
    const [vmi, xml] = golden(name);
    expect(disksToCopy(vmi, xml)).toEqual(want);
  });
});
