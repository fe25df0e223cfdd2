/**
 * Guest devices that need no feature gate to be declared (KubeVirt vmi-create-admitter.go validateInputDevices,
 * validateIOThreadsPolicy, validateMDEVRamFB, validateSoundDevices, validateVideoConfig, validatePanicDevices).
 * The `GPUs`, `Sound` and `video` fields are KubeVirt's, capitals and missing `domain.devices` included.
 */
import type { Gpu } from '../v1/devices.ts';
import { child, invalid, item, type Causes } from './causes.ts';
import { clusterOf, gateEnabled, GATES } from './context.ts';
import type { SpecRule } from './rule.ts';

const IO_THREADS_POLICIES: readonly string[] = ['shared', 'auto', 'supplementalPool'];
const PANIC_MODELS: readonly string[] = ['hyperv', 'isa', 'pvpanic'];

export const inputDevices: SpecRule = (spec, _ctx, path) =>
  (spec.domain.devices.inputs ?? []).flatMap((input, i) => {
    const at = item(path, ['domain', 'devices', 'inputs'], i);
    const bus: string = input.bus ?? '';
    const type: string = input.type;
    return [
      ...(bus !== 'virtio' && bus !== 'usb' && bus !== ''
        ? [invalid(child(at, 'bus'), 'Input device can have only virtio or usb bus.')]
        : []),
      ...(type !== 'tablet' ? [invalid(child(at, 'type'), 'Input device can have only tablet type.')] : []),
    ];
  });

export const ioThreadsPolicy: SpecRule = (spec, _ctx, path) => {
  const policy: string | undefined = spec.domain.ioThreadsPolicy;
  if (policy === undefined) return [];
  const causes: Causes = [];
  if (!IO_THREADS_POLICIES.includes(policy)) {
    causes.push(invalid(child(path, 'domain', 'ioThreadsPolicy'), `Invalid IOThreadsPolicy (${policy})`));
  }
  const count = spec.domain.ioThreads?.supplementalPoolThreadCount;
  if (policy === 'supplementalPool' && (count === undefined || count < 1)) {
    causes.push(
      invalid(
        child(path, 'domain', 'ioThreads', 'count'),
        'the number of iothreads needs to be set and positive for the dedicated policy',
      ),
    );
  }
  return causes;
};

/** A GPU display with ramfb (display.enabled defaults to true; a ramFB without enabled: true is off). */
function ramfbDisplay(gpu: Gpu): boolean {
  const display = gpu.virtualGPUOptions?.display;
  if (display === undefined || display.enabled === false) return false;
  return display.ramFB === undefined || display.ramFB.enabled === true;
}

export const mdevRamfb: SpecRule = (spec, _ctx, path) =>
  (spec.domain.devices.gpus ?? []).filter(ramfbDisplay).length > 1
    ? [invalid(child(path, 'GPUs'), 'configuring multiple displays with ramfb is not valid ')]
    : [];

export const soundDevice: SpecRule = (spec, _ctx, path) => {
  const sound = spec.domain.devices.sound;
  if (sound === undefined) return [];
  const f = child(path, 'Sound');
  const model = sound.model ?? '';
  const causes: Causes = [];
  if (model !== '' && model !== 'ich9' && model !== 'ac97') {
    causes.push(invalid(f, "Sound device type is not supported. Options: 'ich9' or 'ac97'"));
  }
  if (sound.name === '') causes.push(invalid(f, 'Sound device requires a name field.'));
  return causes;
};

export const videoConfig: SpecRule = (spec, ctx, path) => {
  if (spec.domain.devices.video === undefined) return [];
  const f = child(path, 'video');
  if (!gateEnabled(ctx, GATES.VIDEO_CONFIG)) {
    return [
      invalid(
        f,
        `Video configuration is specified but the ${GATES.VIDEO_CONFIG} feature gate is not enabled`,
      ),
    ];
  }
  return spec.domain.devices.autoattachGraphicsDevice === false
    ? [invalid(f, 'Video configuration is not allowed when autoattachGraphicsDevice is set to false')]
    : [];
};

export const panicDevices: SpecRule = (spec, ctx, path) => {
  const list = spec.domain.devices.panicDevices ?? [];
  if (list.length === 0) return [];
  const f = child(path, 'domain', 'devices', 'panicDevices');
  if (!gateEnabled(ctx, GATES.PANIC_DEVICES)) {
    return [invalid(f, 'Panic Devices feature gate is not enabled in kubevirt-config')];
  }
  const arch =
    spec.architecture !== undefined && spec.architecture !== ''
      ? spec.architecture
      : clusterOf(ctx).defaultArchitecture;
  const causes: Causes = [];
  if (arch === 's390x' || arch === 'ppc64le') {
    causes.push(invalid(f, `custom panic devices are not supported on ${arch} architecture`));
  }
  list.forEach((device, i) => {
    const model: string | undefined = device.model;
    if (model !== undefined && !PANIC_MODELS.includes(model)) {
      causes.push(
        invalid(
          child(item(path, ['domain', 'devices', 'panicDevices'], i), 'model'),
          `invalid PanicDeviceModel(${model})`,
        ),
      );
    }
  });
  return causes;
};
