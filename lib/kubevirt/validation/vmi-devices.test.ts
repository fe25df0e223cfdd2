import { describe, it } from '@jest/globals';
import { GATES } from './context.ts';
import { checkSpecRow, ctxWith, inv, raw, type Row } from './testing/fixtures.ts';

describe('validateVmiSpec: devices', () => {
  it.each<Row>([
    ['a USB tablet', (s) => (s.domain.devices.inputs = [{ name: 't', type: 'tablet', bus: 'usb' }]), []],
    [
      'a PS/2 keyboard',
      (s) => (s.domain.devices.inputs = [{ name: 'k', type: 'keyboard', bus: raw('ps2') }]),
      [
        inv('spec.domain.devices.inputs[0].bus', 'Input device can have only virtio or usb bus.'),
        inv('spec.domain.devices.inputs[0].type', 'Input device can have only tablet type.'),
      ],
    ],
    [
      'an unknown IOThreadsPolicy',
      (s) => (s.domain.ioThreadsPolicy = raw('dedicated')),
      [inv('spec.domain.ioThreadsPolicy', 'Invalid IOThreadsPolicy (dedicated)')],
    ],
    [
      'a supplemental pool without a thread count',
      (s) => (s.domain.ioThreadsPolicy = 'supplementalPool'),
      [
        inv(
          'spec.domain.ioThreads.count',
          'the number of iothreads needs to be set and positive for the dedicated policy',
        ),
      ],
    ],
    [
      'a supplemental pool of 2',
      (s) => {
        s.domain.ioThreadsPolicy = 'supplementalPool';
        s.domain.ioThreads = { supplementalPoolThreadCount: 2 };
      },
      [],
    ],
    [
      'two ramfb displays',
      (s) =>
        (s.domain.devices.gpus = [
          {
            name: 'g1',
            deviceName: 'nvidia/a',
            virtualGPUOptions: { display: { ramFB: { enabled: true } } },
          },
          { name: 'g2', deviceName: 'nvidia/a', virtualGPUOptions: { display: {} } },
        ]),
      [inv('spec.GPUs', 'configuring multiple displays with ramfb is not valid ')],
    ],
    [
      'a sound device of an unknown model without a name',
      (s) => (s.domain.devices.sound = { name: '', model: 'sb16' }),
      [
        inv('spec.Sound', "Sound device type is not supported. Options: 'ich9' or 'ac97'"),
        inv('spec.Sound', 'Sound device requires a name field.'),
      ],
    ],
    [
      'a video device without VideoConfig',
      (s) => (s.domain.devices.video = { type: 'virtio' }),
      [inv('spec.video', 'Video configuration is specified but the VideoConfig feature gate is not enabled')],
    ],
    [
      'panic devices without PanicDevices',
      (s) => (s.domain.devices.panicDevices = [{ model: 'isa' }]),
      [
        inv(
          'spec.domain.devices.panicDevices',
          'Panic Devices feature gate is not enabled in kubevirt-config',
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it.each<Row>([
    [
      'a video device with graphics off',
      (s) => {
        s.domain.devices.video = { type: 'virtio' };
        s.domain.devices.autoattachGraphicsDevice = false;
      },
      [inv('spec.video', 'Video configuration is not allowed when autoattachGraphicsDevice is set to false')],
    ],
    [
      'an unknown panic device model',
      (s) => (s.domain.devices.panicDevices = [{ model: 'isa' }, { model: raw('s390') }]),
      [inv('spec.domain.devices.panicDevices[1].model', 'invalid PanicDeviceModel(s390)')],
    ],
    [
      'panic devices on s390x',
      (s) => {
        s.architecture = 's390x';
        s.domain.machine = { type: 's390-ccw-virtio' };
        s.domain.devices.panicDevices = [{ model: 'isa' }];
      },
      [
        inv(
          'spec.domain.devices.panicDevices',
          'custom panic devices are not supported on s390x architecture',
        ),
      ],
    ],
  ])('%s (VideoConfig, PanicDevices, MultiArchitecture on)', (_name, patch, expected) => {
    checkSpecRow(
      patch,
      expected,
      ctxWith([GATES.VIDEO_CONFIG, GATES.PANIC_DEVICES, GATES.MULTI_ARCHITECTURE]),
    );
  });
});
