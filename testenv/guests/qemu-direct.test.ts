import { describe, expect, it } from '@jest/globals';
import { agentDeviceArgs, qemuArgs, userNetArgs } from './qemu-direct.ts';

const valueOf = (args: string[], flag: string): string[] =>
  args.flatMap((a, i) => (a === flag && args[i + 1] !== undefined ? [args[i + 1] as string] : []));

describe('qemuArgs', () => {
  it('boots the kernel under TCG with qemu64, serial to the file and no network or reboot', () => {
    const args = qemuArgs({ kernel: '/k', initrd: '/i', serialLog: '/tmp/s.log' });
    expect(valueOf(args, '-accel')).toEqual(['tcg']);
    expect(valueOf(args, '-cpu')).toEqual(['qemu64']);
    expect(valueOf(args, '-serial')).toEqual(['file:/tmp/s.log']);
    expect(valueOf(args, '-nic')).toEqual(['none']);
    expect(args).toContain('-no-reboot');
    expect(valueOf(args, '-kernel')).toEqual(['/k']);
    expect(valueOf(args, '-initrd')).toEqual(['/i']);
    expect(valueOf(args, '-append')).toEqual(['console=ttyS0 quiet']);
    expect(valueOf(args, '-qmp')).toEqual([]);
  });

  it('takes the command line, memory, a QMP socket and extra devices', () => {
    const args = qemuArgs({
      kernel: '/k',
      initrd: '/i',
      serialLog: '/s',
      cmdline: 'x',
      memoryMiB: 128,
      extraArgs: ['-device', 'd'],
      qmpSocket: '/r/qmp.sock',
    });
    expect(valueOf(args, '-qmp')).toEqual(['unix:/r/qmp.sock,server=on,wait=off']);
    expect(valueOf(args, '-append')).toEqual(['x']);
    expect(valueOf(args, '-m')).toEqual(['128']);
    expect(args.slice(-2)).toEqual(['-device', 'd']);
  });
});

describe('agentDeviceArgs', () => {
  it.each([
    { dataDisk: undefined, drives: [] },
    { dataDisk: '/c/data.qcow2', drives: ['file=/c/data.qcow2,format=qcow2,if=none,id=data0,snapshot=on'] },
  ])(
    'names the agent port and attaches the data disk read-only-to-the-image ($dataDisk)',
    ({ dataDisk, drives }) => {
      const args = agentDeviceArgs(
        dataDisk === undefined ? { agentSocket: '/r/qga.sock' } : { agentSocket: '/r/qga.sock', dataDisk },
      );
      expect(valueOf(args, '-chardev')).toEqual(['socket,id=qga0,path=/r/qga.sock,server=on,wait=off']);
      expect(valueOf(args, '-device')).toContain(
        'virtserialport,bus=vs0.0,chardev=qga0,name=org.qemu.guest_agent.0',
      );
      expect(valueOf(args, '-drive')).toEqual(drives);
    },
  );
});

describe('userNetArgs', () => {
  it('puts a virtio-net NIC on the user network with the hostname and loopback forwards', () => {
    const args = userNetArgs({
      hostname: 'g1',
      forwards: [
        { proto: 'tcp', hostPort: 40000, guestPort: 1500 },
        { proto: 'udp', hostPort: 40001, guestPort: 1501 },
      ],
    });
    expect(args).toEqual([
      '-netdev',
      'user,id=n0,hostname=g1,hostfwd=tcp:127.0.0.1:40000-:1500,hostfwd=udp:127.0.0.1:40001-:1501',
      '-device',
      'virtio-net-pci,netdev=n0',
    ]);
  });
});
