import { describe, expect, it } from '@jest/globals';
import { domainStats, guestAgentInfo, guestFilesystems, guestUsers } from './guest-json.ts';

describe('guestAgentInfo', () => {
  it('maps libvirt guest info keys to VirtualMachineInstanceGuestAgentInfo', () => {
    const info = guestAgentInfo(
      {
        hostname: 'guest',
        'os.id': 'debian',
        'os.kernel-release': '6.1.0',
        'timezone.name': 'UTC',
        'timezone.offset': 0,
        'user.count': 1,
        'user.0.name': 'root',
        'user.0.login-time': 1500,
        'fs.count': 1,
        'fs.0.name': 'vda',
        'fs.0.mountpoint': '/mnt/data',
        'fs.0.fstype': 'ext4',
        'fs.0.total-bytes': 100,
        'fs.0.used-bytes': 10,
      },
      { version: '7.2.22', fsFreezeStatus: 'frozen' },
    );
    expect(info).toMatchObject({
      guestAgentVersion: '7.2.22',
      hostname: 'guest',
      os: { id: 'debian', kernelRelease: '6.1.0', name: '' },
      timezone: 'UTC, 0',
      userList: [{ userName: 'root', domain: '', loginTime: 1.5 }],
      fsInfo: {
        disks: [
          {
            diskName: 'vda',
            mountPoint: '/mnt/data',
            fileSystemType: 'ext4',
            totalBytes: 100,
            usedBytes: 10,
          },
        ],
      },
      fsFreezeStatus: 'frozen',
    });
  });
});

describe('domainStats', () => {
  it('writes each counter with its Set flag', () => {
    const s = domainStats({
      name: 'ns_vm',
      uuid: 'u',
      params: {
        'cpu.time': 5,
        'vcpu.current': 1,
        'vcpu.0.state': 1,
        'block.count': 1,
        'block.0.name': 'vda',
        'block.0.rd.bytes': 7,
      },
    }) as Record<string, unknown>;
    expect(s).toMatchObject({
      Name: 'ns_vm',
      Cpu: { Time: 5, TimeSet: true, User: 0, UserSet: false },
      Vcpu: [{ State: 1, StateSet: true, Time: 0, TimeSet: false }],
      Block: [{ Name: 'vda', NameSet: true, RdBytes: 7, RdBytesSet: true, WrBytesSet: false }],
      Net: [],
      NrVirtCpu: 1,
    });
  });
});

describe('guestUsers', () => {
  it.each([
    ['no users', {}, []],
    ['no user.count', { 'user.0.name': 'root' }, []],
    [
      'a user with domain and login time (ms → s)',
      {
        'user.count': 1,
        'user.0.name': 'Administrator',
        'user.0.domain': 'CORP',
        'user.0.login-time': 1700000000123,
      },
      [{ userName: 'Administrator', domain: 'CORP', loginTime: 1700000000.123 }],
    ],
    [
      'users without domain or login time (omitempty)',
      { 'user.count': 2, 'user.0.name': 'root', 'user.1.name': 'kv', 'user.1.login-time': 2500 },
      [{ userName: 'root' }, { userName: 'kv', loginTime: 2.5 }],
    ],
  ])('maps %s', (_what, params, want) => {
    expect(guestUsers(params)).toEqual(want);
  });
});

describe('guestFilesystems', () => {
  const vda = {
    name: 'vda',
    mountpoint: '/mnt/data',
    type: 'ext4',
    'used-bytes': 1_048_576,
    'total-bytes': 15_000_000,
    disk: [{ 'bus-type': 'virtio', serial: 'D1', bus: 0, target: 0, unit: 0, dev: '/dev/vda' }],
  };
  it.each<[string, unknown, unknown]>([
    ['an agent answer of no filesystems', [], []],
    ['something that is no list', { error: 'x' }, []],
    ['no answer', undefined, []],
    [
      'a mounted disk with its bus and serial',
      [vda],
      [
        {
          diskName: 'vda',
          mountPoint: '/mnt/data',
          fileSystemType: 'ext4',
          usedBytes: 1_048_576,
          totalBytes: 15_000_000,
          disk: [{ serial: 'D1', busType: 'virtio' }],
        },
      ],
    ],
    [
      'a filesystem without sizes, disks or serial (omitempty)',
      [
        { name: 'sr0', mountpoint: '/media', type: 'iso9660', disk: [] },
        { ...vda, disk: [{ 'bus-type': 'sata' }] },
      ],
      [
        { diskName: 'sr0', mountPoint: '/media', fileSystemType: 'iso9660', usedBytes: 0, totalBytes: 0 },
        expect.objectContaining({ diskName: 'vda', disk: [{ busType: 'sata' }] }),
      ],
    ],
  ])('maps %s', (_what, agentReturn, want) => {
    expect(guestFilesystems(agentReturn)).toEqual(want);
  });
});
