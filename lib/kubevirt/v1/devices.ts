/** domain.devices: disks, interfaces and every other guest device, plus the autoattach switches. */
import { s, type Infer } from '../schema/dsl.ts';
import { disk } from './disk.ts';
import { networkInterface } from './network.ts';

const inputBus = s.enum(['usb', 'virtio']);
const inputType = s.enum(['tablet', 'keyboard']);

const input = s.object({
  name: s.string().required(),
  type: inputType.required(),
  bus: inputBus,
});
export type Input = Infer<typeof input>;

const watchdogAction = s.enum(['poweroff', 'reset', 'shutdown']);

const watchdog = s.object({
  name: s.string().required(),
  i6300esb: s.object({ action: watchdogAction }),
  diag288: s.object({ action: watchdogAction }),
});

/** A GPU or host device: a device-plugin resource (deviceName) or a DRA claim (claimName + requestName). */
const hostDeviceFields = {
  name: s.string().required(),
  deviceName: s.string(),
  claimName: s.string(),
  requestName: s.string(),
  tag: s.string(),
};

export const hostDevice = s.object(hostDeviceFields);
export type HostDevice = Infer<typeof hostDevice>;

const gpu = s.object({
  ...hostDeviceFields,
  virtualGPUOptions: s.object({
    display: s.object({ enabled: s.bool(), ramFB: s.object({ enabled: s.bool() }) }),
  }),
});
export type Gpu = Infer<typeof gpu>;

export const devices = s.object({
  disks: s.array(disk),
  interfaces: s.array(networkInterface),
  inputs: s.array(input),
  watchdog,
  rng: s.empty(),
  tpm: s.object({ enabled: s.bool(), persistent: s.bool() }),
  sound: s.object({ name: s.string().required(), model: s.string() }),
  video: s.object({ type: s.string() }),
  gpus: s.array(gpu, { listType: 'atomic' }),
  hostDevices: s.array(hostDevice, { listType: 'atomic' }),
  filesystems: s.array(s.object({ name: s.string().required(), virtiofs: s.empty().required() }), {
    listType: 'atomic',
  }),
  panicDevices: s.array(s.object({ model: s.enum(['hyperv', 'isa', 'pvpanic']) })),
  clientPassthrough: s.empty(),
  downwardMetrics: s.empty(),
  autoattachPodInterface: s.bool(),
  autoattachGraphicsDevice: s.bool(),
  autoattachSerialConsole: s.bool(),
  autoattachMemBalloon: s.bool(),
  autoattachInputDevice: s.bool(),
  autoattachVSOCK: s.bool(),
  logSerialConsole: s.bool(),
  blockMultiQueue: s.bool(),
  networkInterfaceMultiqueue: s.bool(),
  useVirtioTransitional: s.bool(),
  disableHotplug: s.bool(),
});
export type Devices = Infer<typeof devices>;
