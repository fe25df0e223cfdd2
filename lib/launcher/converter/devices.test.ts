import { describe, expect, it } from '@jest/globals';
import type { Devices as VmiDevices, VirtualMachineInstanceSpec } from '../../kubevirt/index.ts';
import { withDisk, withSpec, withVolume } from '../../kubevirt/testing/builders.ts';
import { agentChannelConfigurator } from './agent-channel.ts';
import { balloonConfigurator } from './balloon.ts';
import { consoleConfigurator } from './console.ts';
import type { Arch, ConverterContextOptions } from './context.ts';
import { toDomain } from './convert.ts';
import { graphicsConfigurator } from './graphics.ts';
import { rngConfigurator } from './rng.ts';
import { runConfigurator, TEST_UID, testCtx, testVmi } from './testing/vmi.ts';
import { watchdogConfigurator } from './watchdog.ts';

const devices = (patch: Partial<VmiDevices>): ReturnType<typeof withSpec> =>
  withSpec((s) => {
    Object.assign(s.domain.devices, patch);
  });

describe('controllers (through toDomain)', () => {
  it.each<[string, (s: VirtualMachineInstanceSpec) => void, Arch, string[]]>([
    [
      'default: usb none, scsi for hotplug, virtio-serial',
      () => undefined,
      'amd64',
      ['usb/none', 'scsi/virtio-non-transitional', 'virtio-serial/virtio-non-transitional'],
    ],
    [
      'no hotplug, no serial console',
      (s) => Object.assign(s.domain.devices, { disableHotplug: true, autoattachSerialConsole: false }),
      'amd64',
      ['usb/none'],
    ],
    [
      'a USB tablet needs qemu-xhci',
      (s) => (s.domain.devices.inputs = [{ name: 't', type: 'tablet', bus: 'usb' }]),
      'amd64',
      ['usb/qemu-xhci', 'scsi/virtio-non-transitional', 'virtio-serial/virtio-non-transitional'],
    ],
    [
      'a SCSI disk keeps the SCSI controller without hotplug',
      (s) => {
        s.domain.devices.disableHotplug = true;
        s.domain.devices.disks = [{ name: 'd', disk: { bus: 'scsi' } }];
        s.volumes = [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }];
      },
      'amd64',
      ['usb/none', 'scsi/virtio-non-transitional', 'virtio-serial/virtio-non-transitional'],
    ],
    [
      'arm64 always has USB',
      () => undefined,
      'arm64',
      ['usb/qemu-xhci', 'scsi/virtio-non-transitional', 'virtio-serial/virtio-non-transitional'],
    ],
    ['s390x models', () => undefined, 's390x', ['usb/none', 'scsi/virtio-scsi', 'virtio-serial/virtio']],
  ])('%s', (_, patch, arch, expected) => {
    const vmi = testVmi(withSpec(patch));
    const d = toDomain(vmi, testCtx({ arch }));
    expect(d.devices.controllers.map((c) => `${c.type}/${c.model}`)).toEqual(expected);
  });

  it('a USB disk needs qemu-xhci', () => {
    const vmi = testVmi(
      withDisk({ name: 'u', disk: { bus: 'usb' } }),
      withVolume({ name: 'u', emptyDisk: { capacity: '1Gi' } }),
    );
    expect(toDomain(vmi, testCtx()).devices.controllers[0]).toEqual({
      type: 'usb',
      index: 0,
      model: 'qemu-xhci',
    });
  });
});

describe('graphicsConfigurator', () => {
  interface Expected {
    readonly video: string[];
    readonly inputs: string[];
  }

  it.each<[string, Partial<VmiDevices>, Partial<ConverterContextOptions>, Expected]>([
    ['VGA and VNC on amd64', {}, {}, { video: ['vga'], inputs: [] }],
    ['no graphics when switched off', { autoattachGraphicsDevice: false }, {}, { video: [], inputs: [] }],
    ['the VMI video type', { video: { type: 'virtio' } }, {}, { video: ['virtio'], inputs: [] }],
    [
      'arm64 adds a USB tablet and keyboard',
      {},
      { arch: 'arm64' },
      { video: ['virtio'], inputs: ['tablet/usb', 'keyboard/usb'] },
    ],
    [
      's390x adds a virtio keyboard',
      {},
      { arch: 's390x' },
      { video: ['virtio'], inputs: ['keyboard/virtio'] },
    ],
    [
      'a tablet when autoattachInputDevice',
      { autoattachInputDevice: true },
      {},
      { video: ['vga'], inputs: ['tablet/usb'] },
    ],
    [
      'VMI inputs as given',
      { inputs: [{ name: 'tab', type: 'tablet', bus: 'virtio' }] },
      {},
      { video: ['vga'], inputs: ['tablet/virtio'] },
    ],
  ])('%s', (_, patch, ctx, expected) => {
    const d = runConfigurator(graphicsConfigurator, testVmi(devices(patch)), testCtx(ctx));
    expect(d.devices.video.map((v) => v.type)).toEqual(expected.video);
    expect(d.devices.inputs.map((i) => `${i.type}/${i.bus}`)).toEqual(expected.inputs);
    expect(d.devices.graphics).toEqual(
      expected.video.length === 0
        ? []
        : [{ type: 'vnc', socket: `/var/run/kubevirt-private/${TEST_UID}/virt-vnc` }],
    );
  });

  it('bochs for EFI guests when the context asks', () => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.firmware = { bootloader: { efi: { secureBoot: false } } };
      }),
    );
    expect(
      runConfigurator(graphicsConfigurator, vmi, testCtx({ bochsForEfiGuests: true })).devices.video,
    ).toEqual([{ type: 'bochs', heads: 1 }]);
  });

  it.each<[string, Partial<VmiDevices>, string]>([
    ['a keyboard', { inputs: [{ name: 'k', type: 'keyboard' }] }, 'spec.domain.devices.inputs[0].type'],
    [
      'a PS/2 tablet',
      { inputs: [{ name: 't', type: 'tablet', bus: 'ps2' as 'usb' }] },
      'spec.domain.devices.inputs[0].bus',
    ],
  ])('refuses %s', (_, patch, field) => {
    expect(() => runConfigurator(graphicsConfigurator, testVmi(devices(patch)))).toThrow(
      expect.objectContaining({ field }),
    );
  });
});

describe('consoleConfigurator', () => {
  it.each<[string, Partial<VmiDevices>, Partial<ConverterContextOptions>, 'none' | 'serial' | 'serial+log']>([
    ['serial socket with a log', {}, {}, 'serial+log'],
    ['no log when the cluster turns it off', {}, { serialConsoleLog: false }, 'serial'],
    ['the VMI wins over the cluster', { logSerialConsole: true }, { serialConsoleLog: false }, 'serial+log'],
    ['nothing without a serial console', { autoattachSerialConsole: false }, {}, 'none'],
  ])('%s', (_, patch, ctx, expected) => {
    const d = runConfigurator(consoleConfigurator, testVmi(devices(patch)), testCtx({ root: '/r', ...ctx }));
    const dir = `/r/var/run/kubevirt-private/${TEST_UID}`;
    const serial = expected !== 'none';
    const log = expected === 'serial+log' && { logFile: `${dir}/virt-serial0-log` };
    expect(d.devices.serials).toEqual(serial ? [{ port: 0, socket: `${dir}/virt-serial0`, ...log }] : []);
    expect(d.devices.consoles).toEqual(serial ? [{ type: 'pty', targetType: 'serial', port: 0 }] : []);
  });
});

describe('small devices', () => {
  it('always has the guest-agent channel', () => {
    expect(runConfigurator(agentChannelConfigurator, testVmi()).devices.channels).toEqual([
      { type: 'unix', target: { name: 'org.qemu.guest_agent.0', type: 'virtio' } },
    ]);
  });

  it.each<[string, Partial<VmiDevices>, Partial<ConverterContextOptions>, unknown]>([
    [
      'virtio balloon with stats',
      {},
      {},
      { model: 'virtio-non-transitional', statsPeriod: 10, freePageReporting: 'on' },
    ],
    [
      'no stats with period 0',
      {},
      { memBalloonStatsPeriod: 0, freePageReporting: false },
      { model: 'virtio-non-transitional', freePageReporting: 'off' },
    ],
    ['model none when switched off', { autoattachMemBalloon: false }, {}, { model: 'none' }],
  ])('memballoon: %s', (_, patch, ctx, expected) => {
    expect(
      runConfigurator(balloonConfigurator, testVmi(devices(patch)), testCtx(ctx)).devices.memBalloon,
    ).toEqual(expected);
  });

  it('rng only when asked', () => {
    expect(runConfigurator(rngConfigurator, testVmi()).devices.rng).toBeUndefined();
    expect(runConfigurator(rngConfigurator, testVmi(devices({ rng: {} }))).devices.rng).toEqual({
      model: 'virtio-non-transitional',
      backend: { model: 'random', source: '/dev/urandom' },
    });
  });

  it.each<[Arch, Partial<VmiDevices>, unknown]>([
    [
      'amd64',
      { watchdog: { name: 'w', i6300esb: {} } },
      { model: 'i6300esb', action: 'reset', alias: { name: 'w', userDefined: true } },
    ],
    [
      's390x',
      { watchdog: { name: 'w', diag288: { action: 'poweroff' } } },
      { model: 'diag288', action: 'poweroff', alias: { name: 'w', userDefined: true } },
    ],
  ])('watchdog on %s', (arch, patch, expected) => {
    expect(
      runConfigurator(watchdogConfigurator, testVmi(devices(patch)), testCtx({ arch })).devices.watchdogs,
    ).toEqual([expected]);
  });

  it.each<[Arch, Partial<VmiDevices>]>([
    ['arm64', { watchdog: { name: 'w', i6300esb: {} } }],
    ['amd64', { watchdog: { name: 'w', diag288: {} } }],
  ])('refuses the watchdog on %s', (arch, patch) => {
    expect(() => runConfigurator(watchdogConfigurator, testVmi(devices(patch)), testCtx({ arch }))).toThrow(
      expect.objectContaining({ field: 'spec.domain.devices.watchdog' }),
    );
  });
});
