import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { nopLogger } from '../kernel/log/log.ts';
import type { LibvirtConnection } from '../libvirt/index.ts';
import { cmdHandlers, type DomainCommands, type GuestCommands } from './cmd-handlers.ts';
import { hotplugVcpuCount, updateVcpus, type VcpuDomain } from './vcpu-hotplug.ts';

type Cpu = NonNullable<VirtualMachineInstance['spec']['domain']['cpu']>;

const DYNAMIC = 'internal.virtualization.deckhouse.io/vcpu-topology-dynamic-cores';

function vmiWith(cpu: Cpu | undefined, annotations?: Record<string, string>): VirtualMachineInstance {
  return {
    metadata: { name: 'vm', namespace: 'ns', uid: 'u1', ...(annotations !== undefined && { annotations }) },
    spec: { domain: { devices: {}, ...(cpu !== undefined && { cpu }) } },
  };
}

describe('hotplugVcpuCount', () => {
  it.each([
    { what: 'one socket more', cpu: { sockets: 2, cores: 1, threads: 1, maxSockets: 4 }, want: 2 },
    { what: 'sockets × cores × threads', cpu: { sockets: 3, cores: 2, threads: 2, maxSockets: 4 }, want: 12 },
    { what: 'up to maxSockets', cpu: { sockets: 4, cores: 2, threads: 1, maxSockets: 4 }, want: 8 },
    { what: 'missing parts count as one', cpu: { sockets: 2, maxSockets: 8 }, want: 2 },
    { what: 'fewer sockets (unplug)', cpu: { sockets: 1, cores: 2, threads: 1, maxSockets: 4 }, want: 2 },
  ])('$what: $want vCPUs', ({ cpu, want }) => {
    expect(hotplugVcpuCount(vmiWith(cpu))).toBe(want);
  });

  it('with dynamic cores, cpu.sockets is the cores of each socket and counts the same', () => {
    const vmi = vmiWith({ sockets: 3, cores: 2, threads: 1, maxSockets: 4 }, { [DYNAMIC]: '' });
    expect(hotplugVcpuCount(vmi)).toBe(6);
  });

  it.each([
    { what: 'no cpu', cpu: undefined, error: 'spec.domain.cpu.maxSockets: the VMI was started without' },
    {
      what: 'no maxSockets',
      cpu: { sockets: 2, cores: 1, threads: 1 },
      error: 'spec.domain.cpu.maxSockets: the VMI was started without CPU hotplug headroom',
    },
    {
      what: 'dedicated CPUs',
      cpu: { sockets: 2, cores: 1, threads: 1, maxSockets: 4, dedicatedCpuPlacement: true },
      error: 'spec.domain.cpu.dedicatedCpuPlacement: CPU hotplug of dedicated CPUs is not supported',
    },
    {
      what: 'beyond maxSockets',
      cpu: { sockets: 5, cores: 2, threads: 1, maxSockets: 4 },
      error:
        'spec.domain.cpu.sockets: 10 vCPUs exceed the 8 the domain was started with room for (maxSockets 4)',
    },
  ])('refuses $what', ({ cpu, error }) => {
    expect(() => hotplugVcpuCount(vmiWith(cpu))).toThrow(error);
  });
});

interface Recorded {
  readonly domain: VcpuDomain;
  readonly calls: { proc: string; args: unknown }[];
}

function fakeDomain(identityError?: string): Recorded {
  const calls: { proc: string; args: unknown }[] = [];
  const conn = {
    call: (proc: { name: string }, args: unknown): Promise<unknown> => {
      calls.push({ proc: proc.name, args });
      return Promise.resolve({});
    },
  } as unknown as LibvirtConnection;
  return {
    calls,
    domain: {
      conn,
      require: () => Promise.resolve({ name: 'ns_vm', uuid: '0b3c5a1e-3c8a-4d5e-9f00-112233445566', id: 1 }),
      checkIdentity: (): void => {
        if (identityError !== undefined) throw new Error(identityError);
      },
    },
  };
}

describe('updateVcpus', () => {
  it('sets the count live and in the definition', async () => {
    const f = fakeDomain();
    expect(await updateVcpus(f.domain, vmiWith({ sockets: 3, cores: 2, threads: 1, maxSockets: 4 }))).toBe(6);
    expect(f.calls).toEqual([
      {
        proc: 'REMOTE_PROC_DOMAIN_SET_VCPUS_FLAGS',
        args: expect.objectContaining({ nvcpus: 6, flags: 3 }) as unknown,
      },
    ]);
  });

  it('touches nothing for another VMI', async () => {
    const f = fakeDomain('not this launcher');
    await expect(updateVcpus(f.domain, vmiWith({ sockets: 2, maxSockets: 4 }))).rejects.toThrow('not this');
    expect(f.calls).toEqual([]);
  });
});

describe('SyncVirtualMachineCPUs', () => {
  const signal = new AbortController().signal;
  const request = (vmi: VirtualMachineInstance): { vmi: { vmiJson: Buffer }; options: undefined } => ({
    vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
    options: undefined,
  });

  function handlers(f: Recorded, synced: string[]): ReturnType<typeof cmdHandlers> {
    const manager = { ...f.domain, appliedChecksum: '' } as unknown as DomainCommands;
    return cmdHandlers({
      manager,
      guest: {} as GuestCommands,
      log: nopLogger,
      afterSync: () => synced.push('notified'),
    });
  }

  it('answers success and has the domain reported again', async () => {
    const f = fakeDomain();
    const synced: string[] = [];
    const r = await handlers(f, synced).syncVirtualMachineCpUs?.(
      request(vmiWith({ sockets: 2, cores: 1, threads: 1, maxSockets: 4 })),
      signal,
    );
    expect(r).toEqual({ success: true, message: '' });
    expect(f.calls).toHaveLength(1);
    expect(synced).toEqual(['notified']);
  });

  it('answers a VMI without headroom in-band, naming the field', async () => {
    const f = fakeDomain();
    const r = await handlers(f, []).syncVirtualMachineCpUs?.(request(vmiWith({ sockets: 2 })), signal);
    expect(r).toEqual({
      success: false,
      message:
        'SyncVirtualMachineCPUs failed: spec.domain.cpu.maxSockets: the VMI was started without CPU hotplug ' +
        'headroom: a new vCPU count needs a restart',
    });
    expect(f.calls).toEqual([]);
  });
});
