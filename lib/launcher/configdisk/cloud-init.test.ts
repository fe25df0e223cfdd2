import { describe, expect, it } from '@jest/globals';
import type { CloudInitSource, VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { newVmi, withVolume } from '../../kubevirt/testing/builders.ts';
import { podLayout } from '../../rpc/pod-layout.ts';
import { cloudInitImage, guestHostname, type CloudInitOptions } from './cloud-init.ts';
import { ConfigDiskError } from './image.ts';
import { fakeFs, imageFiles } from './testing/fs.ts';

const ROOT = '/r';
const PRIVATE = '/r/var/run/kubevirt-private';
const NOCLOUD_ISO = '/r/eph/cloud-init-data/default/testvmi/noCloud.iso';
const UUID = '5d307ca9-b3ef-428c-8861-06e72d69f223';
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

function vmiWith(volumes: Volume[], patch: (v: VirtualMachineInstance) => void = () => undefined) {
  const vmi = newVmi(...volumes.map(withVolume));
  vmi.spec.domain.firmware = { uuid: UUID };
  patch(vmi);
  return vmi;
}

const noCloud = (src: CloudInitSource, name = 'ci'): Volume => ({ name, cloudInitNoCloud: src });
const other: Volume = { name: 'root', containerDisk: { image: 'x' } };

function opts(vmi: VirtualMachineInstance, files: Record<string, string> = {}): CloudInitOptions {
  return {
    vmi,
    layout: podLayout(ROOT),
    diskFiles: new Map([
      ['ci', NOCLOUD_ISO],
      ['cd', '/r/eph/cloud-init-data/default/testvmi/configdrive.iso'],
    ]),
    fs: fakeFs(files),
  };
}

describe('cloudInitImage', () => {
  it('writes NoCloud user-data, meta-data and network-config, volume id cidata', () => {
    const vmi = vmiWith([other, noCloud({ userData: '#cloud-config\n', networkData: 'version: 2\n' })]);
    const image = cloudInitImage(opts(vmi));
    expect(image).toMatchObject({ volume: 'ci', isoPath: NOCLOUD_ISO, label: 'cidata' });
    expect(imageFiles(image)).toEqual({
      'user-data': '#cloud-config\n',
      'meta-data': JSON.stringify({ 'instance-id': UUID, 'local-hostname': 'testvmi' }),
      'network-config': 'version: 2\n',
    });
  });

  it('lays out a ConfigDrive as openstack/latest, volume id config-2', () => {
    const vmi = vmiWith([{ name: 'cd', cloudInitConfigDrive: { userDataBase64: b64('#!/bin/sh\n') } }]);
    const image = cloudInitImage(opts(vmi));
    expect(image?.label).toBe('config-2');
    expect(imageFiles(image)).toEqual({
      'openstack/latest/user_data': '#!/bin/sh\n',
      'openstack/latest/meta_data.json': JSON.stringify({
        instance_id: 'testvmi.default',
        hostname: 'testvmi',
        uuid: UUID,
      }),
    });
  });

  it('keeps decoded base64 bytes as they are (gzip user data)', () => {
    const bytes = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00]);
    const image = cloudInitImage(opts(vmiWith([noCloud({ userDataBase64: b64(bytes) })])));
    const user = image?.files.find((f) => f.path === 'user-data');
    expect(user !== undefined && 'content' in user ? user.content : undefined).toEqual(bytes);
  });

  it('grafts the mounted secrets of secretRef and networkDataSecretRef', () => {
    const vmi = vmiWith([noCloud({ secretRef: { name: 's1' }, networkDataSecretRef: { name: 's2' } })]);
    const files = { [`${PRIVATE}/secret/ci/userData`]: 'u', [`${PRIVATE}/secret/ci/networkdata`]: 'n' };
    expect(imageFiles(cloudInitImage(opts(vmi, files)))).toMatchObject({
      'user-data': `<${PRIVATE}/secret/ci/userData>`,
      'network-config': `<${PRIVATE}/secret/ci/networkdata>`,
    });
  });

  it('writes an empty user-data when there is only network data, as KubeVirt does', () => {
    const image = cloudInitImage(opts(vmiWith([noCloud({ networkDataBase64: b64('version: 1') })])));
    expect(imageFiles(image)).toMatchObject({ 'user-data': '', 'network-config': 'version: 1' });
  });

  it('puts the instance type and the propagated SSH keys in the meta-data', () => {
    const vmi = vmiWith([noCloud({ userData: 'x' })], (v) => {
      v.metadata.annotations = { 'kubevirt.io/instancetype-name': 'u1.small' };
      v.spec.accessCredentials = [
        { sshPublicKey: { source: { secret: { secretName: 'k' } }, propagationMethod: { noCloud: {} } } },
        {
          sshPublicKey: {
            source: { secret: { secretName: 'q' } },
            propagationMethod: { qemuGuestAgent: {} },
          },
        },
      ];
    });
    const dir = `${PRIVATE}/secret/k-access-cred`;
    const files = {
      [`${dir}/a`]: 'ssh-ed25519 A',
      [`${dir}/b`]: '',
      [`${dir}/c`]: 'ssh-rsa C',
      [`${dir}/..data/a`]: 'x',
    };
    expect(JSON.parse(imageFiles(cloudInitImage(opts(vmi, files)))['meta-data'] ?? '')).toEqual({
      'instance-type': 'u1.small',
      'instance-id': UUID,
      'local-hostname': 'testvmi',
      'public-keys': { '0': 'ssh-ed25519 A', '1': 'ssh-rsa C' },
    });
  });

  it.each([
    ['no cloud-init volume', [other]],
    ['a cloud-init volume no disk uses', [noCloud({ userData: 'x' }, 'unused')]],
  ])('makes no image for %s', (_what, volumes) => {
    expect(cloudInitImage(opts(vmiWith(volumes)))).toBeUndefined();
  });

  it.each<[string, CloudInitSource, string, string]>([
    [
      'broken base64',
      { userDataBase64: 'not base64!' },
      'spec.volumes[1].cloudInitNoCloud.userDataBase64',
      'is not valid base64',
    ],
    [
      'unpadded base64',
      { userDataBase64: 'YWJj ZA' },
      'spec.volumes[1].cloudInitNoCloud.userDataBase64',
      'is not valid base64',
    ],
    [
      'broken network base64',
      { userData: 'x', networkDataBase64: 'a===' },
      'spec.volumes[1].cloudInitNoCloud.networkDataBase64',
      'is not valid base64',
    ],
    [
      'userData over 2048 bytes',
      { userData: 'x'.repeat(2049) },
      'spec.volumes[1].cloudInitNoCloud.userData',
      '2049 bytes, over the 2048-byte limit',
    ],
    [
      'decoded userDataBase64 over 2048 bytes',
      { userDataBase64: b64('x'.repeat(2100)) },
      'spec.volumes[1].cloudInitNoCloud.userDataBase64',
      '2100 bytes',
    ],
    [
      'networkData over 2048 bytes',
      { networkData: 'n'.repeat(3000) },
      'spec.volumes[1].cloudInitNoCloud.networkData',
      'over the 2048-byte limit',
    ],
    [
      'a secretRef not mounted',
      { secretRef: { name: 's' } },
      'spec.volumes[1].cloudInitNoCloud.secretRef',
      `no file userdata or userData in ${PRIVATE}/secret/ci`,
    ],
    ['no data at all', {}, 'spec.volumes[1].cloudInitNoCloud', 'needs user data or network data'],
    [
      'two user data sources',
      { userData: 'a', userDataBase64: b64('b') },
      'spec.volumes[1].cloudInitNoCloud',
      'only one of userData, userDataBase64 and secretRef',
    ],
  ])('refuses %s, naming the field', (_what, src, field, message) => {
    const err = catchError(() => cloudInitImage(opts(vmiWith([other, noCloud(src)]))));
    expect(err).toBeInstanceOf(ConfigDiskError);
    expect(err).toMatchObject({ code: 'KV_ERR_INVALID', field });
    expect((err as Error).message).toContain(`${field}: `);
    expect((err as Error).message).toContain(message);
  });

  it('accepts exactly 2048 bytes of userData', () => {
    const image = cloudInitImage(opts(vmiWith([noCloud({ userData: 'x'.repeat(2048) })])));
    expect(imageFiles(image)['user-data']).toHaveLength(2048);
  });

  it('names the access credential whose secret is not mounted', () => {
    const vmi = vmiWith([noCloud({ userData: 'x' })], (v) => {
      v.spec.accessCredentials = [
        { sshPublicKey: { source: { secret: { secretName: 'k' } }, propagationMethod: { noCloud: {} } } },
      ];
    });
    expect(() => cloudInitImage(opts(vmi))).toThrow(
      `spec.accessCredentials[0].sshPublicKey.source.secret: the secret is not mounted: no directory ${PRIVATE}/secret/k-access-cred`,
    );
  });
});

describe('guestHostname', () => {
  it.each([
    ['the VMI name', 'vm1', undefined, 'vm1'],
    ['the name up to its first dot', 'web.example', undefined, 'web'],
    ['at most 63 characters of the name', 'a'.repeat(70), undefined, 'a'.repeat(63)],
    ['spec.hostname over the name', 'vm1', 'myhost', 'myhost'],
  ])('takes %s', (_what, name, hostname, want) => {
    const vmi = newVmi();
    vmi.metadata.name = name;
    if (hostname !== undefined) vmi.spec.hostname = hostname;
    expect(guestHostname(vmi)).toBe(want);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
