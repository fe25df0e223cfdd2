import { describe, expect, it } from '@jest/globals';
import type {
  DeviceStatusInfo,
  Gpu,
  HostDevice as VmiHostDevice,
  VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { toDomain } from './convert.ts';
import { devicesXml } from './devices-xml.ts';
import type { HostDevice } from './domain-spec.ts';
import { ConversionError } from './errors.ts';
import { hostDevicesConfigurator } from './host-devices.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';
import { renderXml } from './xml.ts';

type Attributes = NonNullable<NonNullable<DeviceStatusInfo['deviceResourceClaimStatus']>['attributes']>;

/** A DRA device as Deckhouse asks for one: claim and request named after it. */
const dra = (name: string, extra: Partial<Gpu> = {}): Gpu => ({
  name,
  claimName: name,
  requestName: name,
  ...extra,
});

/** Its status once allocated: the claim's device and the attributes the controller copied. */
const allocated = (name: string, attributes?: Attributes): DeviceStatusInfo => ({
  name,
  deviceResourceClaimStatus: {
    name: `dev-${name}`,
    resourceClaimName: `vm-${name}-x1y2z`,
    ...(attributes !== undefined && { attributes }),
  },
});

interface Case {
  readonly gpus?: Gpu[];
  readonly hostDevices?: VmiHostDevice[];
  readonly gpuStatuses?: DeviceStatusInfo[];
  readonly hostDeviceStatuses?: DeviceStatusInfo[];
}

function vmiWith(c: Case): VirtualMachineInstance {
  const vmi = testVmi(
    withSpec((s) => {
      if (c.gpus !== undefined) s.domain.devices.gpus = c.gpus;
      if (c.hostDevices !== undefined) s.domain.devices.hostDevices = c.hostDevices;
    }),
  );
  if (c.gpuStatuses !== undefined || c.hostDeviceStatuses !== undefined) {
    vmi.status = {
      deviceStatus: {
        ...(c.gpuStatuses !== undefined && { gpuStatuses: c.gpuStatuses }),
        ...(c.hostDeviceStatuses !== undefined && { hostDeviceStatuses: c.hostDeviceStatuses }),
      },
    };
  }
  return vmi;
}

const hostDevices = (c: Case): HostDevice[] =>
  runConfigurator(hostDevicesConfigurator, vmiWith(c)).devices.hostDevices;

const ua = (name: string): { name: string; userDefined: true } => ({ name, userDefined: true });
const PCI_3B = { type: 'pci', domain: '0x0000', bus: '0x3b', slot: '0x00', function: '0x0' } as const;
const UUID_A = '8f2c6a1e-4b3d-4e5f-9a0b-1c2d3e4f5a6b';
const UUID_B = '2d7e9b40-1a2b-4c3d-8e4f-5a6b7c8d9e0f';

describe('DRA host devices and GPUs (kubevirt dra/generic_hostdev.go, dra/gpu_hostdev.go)', () => {
  it.each<[string, Case, HostDevice[]]>([
    ['none asked', {}, []],
    [
      'a host device by PCI address: VFIO, not managed',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('vf', { pciAddress: '0000:3b:00.0' })] },
      [{ type: 'pci', source: PCI_3B, alias: ua('dra-hostdevice-vf') }],
    ],
    [
      'a host device by mdev UUID: no display',
      { hostDevices: [dra('m')], hostDeviceStatuses: [allocated('m', { mDevUUID: UUID_A })] },
      [{ type: 'mdev', uuid: UUID_A, alias: ua('dra-hostdevice-m') }],
    ],
    [
      "the fork's USB device by bus and device number",
      {
        hostDevices: [{ name: 'token', claimName: 'token', requestName: 'req-token' }],
        hostDeviceStatuses: [allocated('token', { usbAddress: { bus: 3, deviceNumber: 2 } })],
      },
      [{ type: 'usb', bus: 3, device: 2, alias: ua('dra-hostdevice-token') }],
    ],
    [
      'the PCI address wins over an mdev UUID',
      {
        hostDevices: [dra('vf')],
        hostDeviceStatuses: [allocated('vf', { pciAddress: '0000:3b:00.0', mDevUUID: UUID_A })],
      },
      [{ type: 'pci', source: PCI_3B, alias: ua('dra-hostdevice-vf') }],
    ],
    [
      'a GPU by PCI address',
      { gpus: [dra('gpu-0')], gpuStatuses: [allocated('gpu-0', { pciAddress: '0000:3b:00.0' })] },
      [{ type: 'pci', source: PCI_3B, alias: ua('dra-gpu-gpu-0') }],
    ],
    [
      'vGPUs with no display options: the first is the display, with ramfb',
      {
        gpus: [dra('gpu-0'), dra('gpu-1')],
        gpuStatuses: [allocated('gpu-0', { mDevUUID: UUID_A }), allocated('gpu-1', { mDevUUID: UUID_B })],
      },
      [
        { type: 'mdev', uuid: UUID_A, display: 'on', ramfb: 'on', alias: ua('dra-gpu-gpu-0') },
        { type: 'mdev', uuid: UUID_B, alias: ua('dra-gpu-gpu-1') },
      ],
    ],
    [
      'vGPU display options: each as asked, no default once one says anything',
      {
        gpus: [
          dra('gpu-0', { virtualGPUOptions: { display: { enabled: false } } }),
          dra('gpu-1', { virtualGPUOptions: { display: { ramFB: { enabled: false } } } }),
          dra('gpu-2', { virtualGPUOptions: { display: {} } }),
          dra('gpu-3'),
        ],
        gpuStatuses: ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3'].map((n) => allocated(n, { mDevUUID: n })),
      },
      [
        { type: 'mdev', uuid: 'gpu-0', alias: ua('dra-gpu-gpu-0') },
        { type: 'mdev', uuid: 'gpu-1', display: 'on', alias: ua('dra-gpu-gpu-1') },
        { type: 'mdev', uuid: 'gpu-2', display: 'on', ramfb: 'on', alias: ua('dra-gpu-gpu-2') },
        { type: 'mdev', uuid: 'gpu-3', alias: ua('dra-gpu-gpu-3') },
      ],
    ],
    [
      'host devices before GPUs; PCI before mdev, each in status order',
      {
        hostDevices: [dra('m'), dra('vf')],
        gpus: [dra('gpu-0'), dra('gpu-1')],
        hostDeviceStatuses: [
          allocated('m', { mDevUUID: UUID_A }),
          allocated('vf', { pciAddress: '0000:af:02.1' }),
        ],
        gpuStatuses: [
          allocated('gpu-1', { mDevUUID: UUID_B }),
          allocated('gpu-0', { pciAddress: '0000:3b:00.0' }),
        ],
      },
      [
        {
          type: 'pci',
          source: { type: 'pci', domain: '0x0000', bus: '0xaf', slot: '0x02', function: '0x1' },
          alias: ua('dra-hostdevice-vf'),
        },
        { type: 'mdev', uuid: UUID_A, alias: ua('dra-hostdevice-m') },
        { type: 'pci', source: PCI_3B, alias: ua('dra-gpu-gpu-0') },
        { type: 'mdev', uuid: UUID_B, display: 'on', ramfb: 'on', alias: ua('dra-gpu-gpu-1') },
      ],
    ],
    [
      'a status entry for a device the spec does not have (a removed one) is left alone',
      {
        gpus: [dra('gpu-0')],
        gpuStatuses: [allocated('gone', { pciAddress: 'junk' }), allocated('gpu-0', { mDevUUID: UUID_A })],
      },
      [{ type: 'mdev', uuid: UUID_A, display: 'on', ramfb: 'on', alias: ua('dra-gpu-gpu-0') }],
    ],
  ])('%s', (_name, c, want) => {
    expect(hostDevices(c)).toEqual(want);
  });

  it.each<[string, Case, string, RegExp]>([
    [
      'a DRA GPU and no device status',
      { gpus: [dra('gpu-0')] },
      'spec.domain.devices.gpus[0]',
      /^DRA GPU gpu-0 has no allocated device yet: the VMI has no status.deviceStatus$/,
    ],
    [
      'a DRA host device and no entry for it',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('other', { pciAddress: '0000:3b:00.0' })] },
      'spec.domain.devices.hostDevices[0]',
      /host device vf has no allocated device yet: status.deviceStatus.hostDeviceStatuses has no entry for it$/,
    ],
    [
      'an entry without attributes (the claim is not allocated yet)',
      { gpus: [dra('gpu-0')], gpuStatuses: [allocated('gpu-0')] },
      'spec.domain.devices.gpus[0]',
      /its status.deviceStatus.gpuStatuses entry has no attributes$/,
    ],
    [
      'attributes with nothing to pass through',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('vf', {})] },
      'spec.domain.devices.hostDevices[0]',
      /attributes have no pciAddress, mDevUUID or usbAddress$/,
    ],
    [
      'a GPU with only a USB address',
      {
        gpus: [dra('gpu-0')],
        gpuStatuses: [allocated('gpu-0', { usbAddress: { bus: 1, deviceNumber: 2 } })],
      },
      'spec.domain.devices.gpus[0]',
      /attributes have no pciAddress or mDevUUID$/,
    ],
    [
      'the second of two GPUs not allocated yet',
      { gpus: [dra('gpu-0'), dra('gpu-1')], gpuStatuses: [allocated('gpu-0', { mDevUUID: UUID_A })] },
      'spec.domain.devices.gpus[1]',
      /^DRA GPU gpu-1 has no allocated device yet/,
    ],
    [
      'a PCI address that is not one',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('vf', { pciAddress: '3b:00.0' })] },
      'status.deviceStatus.hostDeviceStatuses[0].deviceResourceClaimStatus.attributes.pciAddress',
      /^"3b:00.0" is not a PCI address/,
    ],
  ])('refuses %s, naming the field', (_name, c, field, detail) => {
    const err = ((): unknown => {
      try {
        hostDevices(c);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ConversionError);
    expect(err).toMatchObject({ field, reason: 'invalid', code: 'KV_ERR_INVALID' });
    expect((err as ConversionError).detail).toMatch(detail);
  });

  it.each<[string, Case, string]>([
    [
      'PCI',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('vf', { pciAddress: '0000:3b:00.0' })] },
      [
        '<hostdev mode="subsystem" type="pci" managed="no">',
        '  <source>',
        '    <address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"/>',
        '  </source>',
        '  <alias name="ua-dra-hostdevice-vf"/>',
        '</hostdev>',
      ].join('\n'),
    ],
    [
      'mdev with display',
      { gpus: [dra('gpu-0')], gpuStatuses: [allocated('gpu-0', { mDevUUID: UUID_A })] },
      [
        '<hostdev mode="subsystem" type="mdev" model="vfio-pci" display="on" ramfb="on">',
        '  <source>',
        `    <address uuid="${UUID_A}"/>`,
        '  </source>',
        '  <alias name="ua-dra-gpu-gpu-0"/>',
        '</hostdev>',
      ].join('\n'),
    ],
    [
      'USB',
      {
        hostDevices: [dra('t')],
        hostDeviceStatuses: [allocated('t', { usbAddress: { bus: 3, deviceNumber: 12 } })],
      },
      [
        '<hostdev mode="subsystem" type="usb">',
        '  <source>',
        '    <address bus="3" device="12"/>',
        '  </source>',
        '  <alias name="ua-dra-hostdevice-t"/>',
        '</hostdev>',
      ].join('\n'),
    ],
  ])('is written as libvirt reads it: %s', (_name, c, xml) => {
    const devices = devicesXml(runConfigurator(hostDevicesConfigurator, vmiWith(c)).devices);
    const element = devices.children.find((e) => e.name === 'hostdev');
    expect(element && renderXml(element).trim()).toBe(xml);
  });

  it.each<[string, Case, string]>([
    ['no host device', {}, 'none'],
    [
      'a PCI host device',
      { hostDevices: [dra('vf')], hostDeviceStatuses: [allocated('vf', { pciAddress: '0000:3b:00.0' })] },
      'none',
    ],
    [
      'a USB host device',
      {
        hostDevices: [dra('t')],
        hostDeviceStatuses: [allocated('t', { usbAddress: { bus: 3, deviceNumber: 2 } })],
      },
      'qemu-xhci',
    ],
  ])('the USB controller with %s', (_name, c, model) => {
    const controllers = toDomain(vmiWith(c), testCtx()).devices.controllers;
    expect(controllers.find((x) => x.type === 'usb')?.model).toBe(model);
  });
});
