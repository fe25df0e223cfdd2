import { describe, expect, it } from '@jest/globals';
import type { Firmware, VirtualMachineInstanceSpec } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import type { Arch } from './context.ts';
import { firmwareConfigurator } from './firmware.ts';
import { osConfigurator } from './os.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

const firmware = (f: Firmware): ReturnType<typeof withSpec> =>
  withSpec((s) => {
    s.domain.firmware = f;
  });

describe('osConfigurator', () => {
  it.each<[Arch, string | undefined, string]>([
    ['amd64', undefined, 'x86_64/q35 smbios'],
    ['amd64', 'pc-q35-9.2', 'x86_64/pc-q35-9.2 smbios'],
    ['arm64', undefined, 'aarch64/virt'],
    ['s390x', undefined, 's390x/s390-ccw-virtio'],
  ])('%s with machine %p → %s', (arch, machine, expected) => {
    const vmi = testVmi(
      withSpec((s) => {
        if (machine !== undefined) s.domain.machine = { type: machine };
      }),
    );
    const os = runConfigurator(osConfigurator, vmi, testCtx({ arch })).os;
    expect(`${os.type.arch}/${os.type.machine}${os.smbiosMode === undefined ? '' : ' smbios'}`).toBe(
      expected,
    );
  });

  it('boots the kernel-boot artifacts from where the Pod mounts that image, under the root', () => {
    const vmi = testVmi(
      firmware({
        kernelBoot: {
          kernelArgs: 'console=ttyS0',
          container: { image: 'guest:1', kernelPath: '/boot/vmlinux', initrdPath: '/boot/initrd.img' },
        },
      }),
    );
    const os = runConfigurator(osConfigurator, vmi, testCtx({ root: '/srv/l1' })).os;
    expect(os.kernel).toBe('/srv/l1/var/run/kubevirt-kernel-boot/boot/vmlinux');
    expect(os.initrd).toBe('/srv/l1/var/run/kubevirt-kernel-boot/boot/initrd.img');
    expect(os.cmdline).toBe('console=ttyS0');
  });

  it('keeps a kernelPath that climbs with .. inside the kernel-boot mount', () => {
    const vmi = testVmi(
      firmware({ kernelBoot: { container: { image: 'x', kernelPath: '../../../etc/shadow' } } }),
    );
    expect(runConfigurator(osConfigurator, vmi).os.kernel).toBe('/var/run/kubevirt-kernel-boot/etc/shadow');
  });

  it('an initrd alone is fine; a paused start gets a boot menu; BIOS serial output', () => {
    const vmi = testVmi(
      withSpec((s) => {
        s.startStrategy = 'Paused';
        s.domain.firmware = {
          bootloader: { bios: { useSerial: true } },
          kernelBoot: { container: { image: 'x', initrdPath: 'initrd' } },
        };
      }),
    );
    const os = runConfigurator(osConfigurator, vmi).os;
    expect(os.kernel).toBeUndefined();
    expect(os.initrd).toBe('/var/run/kubevirt-kernel-boot/initrd');
    expect(os.bootMenu).toEqual({ enable: 'yes', timeoutMs: 10000 });
    expect(os.biosUseSerial).toBe(true);
  });

  it.each<[string, (s: VirtualMachineInstanceSpec) => void, string]>([
    [
      'BIOS serial output without a serial console (libvirt refuses it)',
      (s) => {
        s.domain.firmware = { bootloader: { bios: { useSerial: true } } };
        s.domain.devices.autoattachSerialConsole = false;
      },
      'spec.domain.firmware.bootloader.bios.useSerial',
    ],
    [
      'kernel args without a kernel',
      (s) => (s.domain.firmware = { kernelBoot: { kernelArgs: 'quiet' } }),
      'spec.domain.firmware.kernelBoot.kernelArgs',
    ],
    [
      'a container with neither kernel nor initrd',
      (s) => (s.domain.firmware = { kernelBoot: { container: { image: 'x' } } }),
      'spec.domain.firmware.kernelBoot.container',
    ],
    ['a guest of another architecture', (s) => (s.architecture = 'arm64'), 'spec.architecture'],
  ])('%s → error at %s', (_, patch, field) => {
    expect(() => runConfigurator(osConfigurator, testVmi(withSpec(patch)))).toThrow(
      expect.objectContaining({ field }),
    );
  });
});

describe('firmwareConfigurator', () => {
  const smmOn = withSpec((s) => {
    s.domain.features = { smm: { enabled: true } };
  });

  it.each<[string, boolean | undefined, { code: string; vars: string; secure: 'yes' | 'no' }]>([
    [
      'secure boot by default',
      undefined,
      { code: 'OVMF_CODE_4M.secboot.fd', vars: 'OVMF_VARS_4M.fd', secure: 'yes' },
    ],
    ['secure boot on', true, { code: 'OVMF_CODE_4M.secboot.fd', vars: 'OVMF_VARS_4M.fd', secure: 'yes' }],
    ['secure boot off', false, { code: 'OVMF_CODE_4M.fd', vars: 'OVMF_VARS_4M.fd', secure: 'no' }],
  ])('EFI, %s', (_, secureBoot, files) => {
    const efi = secureBoot === undefined ? {} : { secureBoot };
    const vmi = testVmi(firmware({ bootloader: { efi } }), smmOn);
    const os = runConfigurator(firmwareConfigurator, vmi, testCtx({ ovmfDir: '/fw', root: '/r' })).os;
    expect(os.loader).toEqual({
      path: `/fw/${files.code}`,
      readonly: 'yes',
      secure: files.secure,
      type: 'pflash',
    });
    expect(os.nvram).toEqual({
      template: `/fw/${files.vars}`,
      path: '/r/var/run/kubevirt-private/libvirt/qemu/nvram/testvmi_VARS.fd',
    });
  });

  it('takes EFI files the context names and AAVMF on arm64', () => {
    const vmi = testVmi(firmware({ bootloader: { efi: { secureBoot: false } } }));
    const given = runConfigurator(firmwareConfigurator, vmi, testCtx({ efi: { code: '/x/CODE_4M.fd' } })).os;
    expect(given.loader?.path).toBe('/x/CODE_4M.fd');
    expect(given.nvram?.template).toBe('/usr/share/OVMF/OVMF_VARS_4M.fd');
    const arm = runConfigurator(firmwareConfigurator, vmi, testCtx({ arch: 'arm64' })).os;
    expect(arm.loader?.path).toBe('/usr/share/OVMF/AAVMF_CODE.fd');
  });

  it('writes firmware uuid and serial, the SMBIOS values and the chassis into sysinfo', () => {
    const vmi = testVmi(
      firmware({ uuid: '5d307ca9-b3ef-428c-8861-06e72d69f223', serial: 'S-1' }),
      withSpec((s) => {
        s.domain.chassis = { manufacturer: 'Flant', sku: 'x' };
      }),
    );
    const smbios = { manufacturer: 'M', family: 'F', product: 'P', sku: '', version: 'V' };
    const d = runConfigurator(firmwareConfigurator, vmi, testCtx({ smbios }));
    expect(d.sysinfo.system.map((e) => `${e.name}=${e.value}`)).toEqual([
      'uuid=5d307ca9-b3ef-428c-8861-06e72d69f223',
      'serial=S-1',
      'manufacturer=M',
      'family=F',
      'product=P',
      'sku=',
      'version=V',
    ]);
    expect(d.sysinfo.chassis.map((e) => `${e.name}=${e.value}`)).toEqual([
      'manufacturer=Flant',
      'version=',
      'serial=',
      'asset=',
      'sku=x',
    ]);
    expect(d.os.loader).toBeUndefined();
  });

  it.each<[string, (s: VirtualMachineInstanceSpec) => void, string]>([
    [
      'secure boot without SMM',
      (s) => (s.domain.firmware = { bootloader: { efi: {} } }),
      'spec.domain.features.smm',
    ],
    [
      'secure boot with SMM switched off',
      (s) => {
        s.domain.firmware = { bootloader: { efi: { secureBoot: true } } };
        s.domain.features = { smm: { enabled: false } };
      },
      'spec.domain.features.smm',
    ],
    [
      'both BIOS and EFI',
      (s) => (s.domain.firmware = { bootloader: { bios: {}, efi: { secureBoot: false } } }),
      'spec.domain.firmware.bootloader',
    ],
  ])('%s → error at %s', (_, patch, field) => {
    expect(() => runConfigurator(firmwareConfigurator, testVmi(withSpec(patch)))).toThrow(
      expect.objectContaining({ field }),
    );
  });
});
