import { describe, expect, it } from '@jest/globals';
import { domainStats, guestAgentInfo } from './guest-json.ts';

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
