import { describe, expect, it } from '@jest/globals';
import type { Memory, VirtualMachineInstance } from '../kubevirt/index.ts';
import { nopLogger } from '../kernel/log/log.ts';
import type { LibvirtConnection } from '../libvirt/index.ts';
import { cmdHandlers, type DomainCommands, type GuestCommands } from './cmd-handlers.ts';
import {
  hotplugRequestedBytes,
  updateGuestMemory,
  virtioMemUpdateXml,
  type MemoryDomain,
} from './memory-hotplug.ts';

const MiB = 1024 * 1024;

function vmiWith(memory: Memory | undefined, guestAtBoot?: string): VirtualMachineInstance {
  return {
    metadata: { name: 'vm', namespace: 'ns', uid: 'u1' },
    spec: { domain: { devices: {}, ...(memory !== undefined && { memory }) } },
    ...(guestAtBoot !== undefined && { status: { memory: { guestAtBoot } } }),
  };
}

/** A running domain's virtio-mem device as libvirt 9.0 reports it (alias, PCI address, current size). */
const LIVE_XML = `<domain type="kvm" id="1">
  <name>ns_vm</name>
  <devices>
    <memballoon model="virtio"/>
    <memory model="virtio-mem">
      <target>
        <size unit="KiB">3145728</size>
        <node>0</node>
        <block unit="KiB">2048</block>
        <requested unit="KiB">0</requested>
        <current unit="KiB">0</current>
        <address base="0x100000000"/>
      </target>
      <alias name="virtiomem0"/>
      <address type="pci" domain="0x0000" bus="0x00" slot="0x05" function="0x0"/>
    </memory>
  </devices>
</domain>`;

describe('hotplugRequestedBytes', () => {
  it.each<[string, Memory, string | undefined, number]>([
    ['grown by 512Mi', { guest: '1536Mi', maxGuest: '4Gi' }, '1Gi', 512 * MiB],
    ['up to maxGuest', { guest: '4Gi', maxGuest: '4Gi' }, '1Gi', 3072 * MiB],
    ['back to the boot memory (unplug)', { guest: '1Gi', maxGuest: '4Gi' }, '1Gi', 0],
  ])('%s', (_, memory, atBoot, bytes) => {
    expect(hotplugRequestedBytes(vmiWith(memory, atBoot))).toBe(bytes);
  });

  it.each<[string, Memory | undefined, string | undefined, string]>([
    [
      'no maxGuest',
      { guest: '2Gi' },
      '1Gi',
      'spec.domain.memory.maxGuest: the VMI was started without memory hotplug headroom',
    ],
    ['no memory at all', undefined, undefined, 'spec.domain.memory.maxGuest: the VMI was started without'],
    [
      'beyond maxGuest',
      { guest: '5Gi', maxGuest: '4Gi' },
      '1Gi',
      'spec.domain.memory.maxGuest: Guest memory is greater than the configured maxGuest memory',
    ],
    [
      'below the boot memory',
      { guest: '512Mi', maxGuest: '4Gi' },
      '1Gi',
      'spec.domain.memory.guest: lower than the memory the VMI started with',
    ],
  ])('refuses %s', (_, memory, atBoot, error) => {
    expect(() => hotplugRequestedBytes(vmiWith(memory, atBoot))).toThrow(error);
  });
});

describe('virtioMemUpdateXml', () => {
  it('is the live device with only the requested size changed', () => {
    expect(virtioMemUpdateXml(LIVE_XML, 128 * MiB)).toBe(
      [
        '<memory model="virtio-mem">',
        '  <target>',
        '    <size unit="KiB">3145728</size>',
        '    <node>0</node>',
        '    <block unit="KiB">2048</block>',
        '    <requested unit="KiB">131072</requested>',
        '    <current unit="KiB">0</current>',
        '    <address base="0x100000000"/>',
        '  </target>',
        '  <alias name="virtiomem0"/>',
        '  <address type="pci" domain="0x0000" bus="0x00" slot="0x05" function="0x0"/>',
        '</memory>',
        '',
      ].join('\n'),
    );
  });

  it('refuses a domain without a virtio-mem device', () => {
    const none = LIVE_XML.replace(/<memory model[\s\S]*<\/memory>/, '');
    expect(() => virtioMemUpdateXml(none, 0)).toThrow('the domain has no virtio-mem device');
  });
});

interface Recorded {
  readonly domain: MemoryDomain;
  readonly calls: { proc: string; args: unknown }[];
}

function fakeDomain(identityError?: string): Recorded {
  const calls: { proc: string; args: unknown }[] = [];
  const conn = {
    call: (proc: { name: string }, args: unknown): Promise<unknown> => {
      calls.push({ proc: proc.name, args });
      return Promise.resolve(proc.name === 'REMOTE_PROC_DOMAIN_GET_XML_DESC' ? { xml: LIVE_XML } : {});
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

describe('updateGuestMemory', () => {
  it('updates the live device (flags LIVE only, as KubeVirt)', async () => {
    const f = fakeDomain();
    expect(await updateGuestMemory(f.domain, vmiWith({ guest: '1152Mi', maxGuest: '4Gi' }, '1Gi'))).toBe(
      128 * MiB,
    );
    expect(f.calls.map((c) => c.proc)).toEqual([
      'REMOTE_PROC_DOMAIN_GET_XML_DESC',
      'REMOTE_PROC_DOMAIN_UPDATE_DEVICE_FLAGS',
    ]);
    expect(f.calls[1]?.args).toEqual(
      expect.objectContaining({
        flags: 1,
        xml: expect.stringContaining('<requested unit="KiB">131072</requested>'),
      }),
    );
  });

  it('touches nothing for another VMI', async () => {
    const f = fakeDomain('not this launcher');
    await expect(
      updateGuestMemory(f.domain, vmiWith({ guest: '2Gi', maxGuest: '4Gi' }, '1Gi')),
    ).rejects.toThrow('not this');
    expect(f.calls).toEqual([]);
  });
});

describe('SyncVirtualMachineMemory', () => {
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
    const r = await handlers(f, synced).syncVirtualMachineMemory?.(
      request(vmiWith({ guest: '2Gi', maxGuest: '4Gi' }, '1Gi')),
      signal,
    );
    expect(r).toEqual({ success: true, message: '' });
    expect(f.calls).toHaveLength(2);
    expect(synced).toEqual(['notified']);
  });

  it('answers a VMI without headroom in-band, naming the field', async () => {
    const f = fakeDomain();
    const r = await handlers(f, []).syncVirtualMachineMemory?.(
      request(vmiWith({ guest: '2Gi' }, '1Gi')),
      signal,
    );
    expect(r).toEqual({
      success: false,
      message:
        'SyncVirtualMachineMemory failed: spec.domain.memory.maxGuest: the VMI was started without memory ' +
        'hotplug headroom: a new guest memory needs a restart',
    });
    expect(f.calls).toEqual([]);
  });
});
