import { describe, expect, it } from '@jest/globals';
import { VirtualMachineOptions } from '../../rpc/index.ts';
import { syncContext, type HostFacts } from './context.ts';

const host: HostFacts = {
  root: '/tmp/r',
  arch: 'amd64',
  emulation: true,
  directIo: false,
  hostCpuModels: ['qemu64'],
  maxVcpus: 288,
};

describe('syncContext', () => {
  it('binds QEMU to a private serial socket next to the public one', () => {
    const ctx = syncContext(host, undefined);
    expect(ctx.layout.serialSocket('u1')).toBe('/tmp/r/var/run/kubevirt-private/u1/virt-serial0-qemu');
    expect(ctx.layout.serialLog('u1')).toBe('/tmp/r/var/run/kubevirt-private/u1/virt-serial0-log');
    expect(ctx).toMatchObject({
      emulation: true,
      directIo: false,
      hostCpuModels: ['qemu64'],
      maxVcpus: 288,
      memBalloonStatsPeriod: 10,
    });
  });

  it('takes what the handler sent in VirtualMachineOptions', () => {
    const options = VirtualMachineOptions.fromPartial({
      MemBalloonStatsPeriod: 0,
      PreallocatedVolumes: ['thick'],
      DisksInfo: { data: { format: 'qcow2' }, odd: { format: 'vmdk' } },
      VirtualMachineSMBios: { manufacturer: 'M', family: 'F', product: 'P', sku: 'S', version: 'V' },
      clusterConfig: {
        SerialConsoleLogDisabled: true,
        FreePageReportingDisabled: true,
        BochsDisplayForEFIGuests: true,
      },
    });
    const ctx = syncContext(host, options);
    expect(ctx.memBalloonStatsPeriod).toBe(0);
    expect([...ctx.preallocatedVolumes]).toEqual(['thick']);
    expect([...ctx.containerDiskFormats]).toEqual([['data', 'qcow2']]);
    expect(ctx.smbios).toEqual({ manufacturer: 'M', family: 'F', product: 'P', sku: 'S', version: 'V' });
    expect(ctx).toMatchObject({ serialConsoleLog: false, freePageReporting: false, bochsForEfiGuests: true });
  });
});
