/**
 * KubeVirt's API-type defaults (its generated SetObjectDefaults): features and timers on unless switched off,
 * disks default to `disk`, CD-ROMs read-only with a closed tray, tablets on USB, probe timings. Applied to a
 * VMI spec, to a VM's template spec, and to the disks of a VM's pending addvolume requests.
 */
import type { JsonObject } from '../schema/dsl.ts';
import type { Devices } from '../v1/devices.ts';
import type { Disk } from '../v1/disk.ts';
import type { Features } from '../v1/features.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';

interface Toggle {
  enabled?: boolean;
}

function enable(state: Toggle | undefined): void {
  if (state !== undefined) state.enabled ??= true;
}

const HYPERV_TOGGLES = [
  'relaxed',
  'vapic',
  'vpindex',
  'runtime',
  'synic',
  'reset',
  'vendorid',
  'frequencies',
  'reenlightenment',
  'tlbflush',
  'ipi',
  'evmcs',
] as const;

function setFeatureDefaults(features: Features): void {
  // ACPI is a value in KubeVirt's Go type, so it is always present after defaulting.
  enable((features.acpi ??= {}));
  enable(features.apic);
  enable(features.smm);
  enable(features.pvspinlock);
  const hyperv = features.hyperv;
  if (hyperv === undefined) return;
  for (const name of HYPERV_TOGGLES) enable(hyperv[name]);
  const spinlocks = hyperv.spinlocks;
  if (spinlocks !== undefined) {
    spinlocks.enabled ??= true;
    if (spinlocks.enabled) spinlocks.spinlocks ??= 4096;
  }
  enable(hyperv.synictimer);
  enable(hyperv.synictimer?.direct);
}

function setDiskDefaults(disk: Disk): void {
  if (disk.disk === undefined && disk.cdrom === undefined && disk.lun === undefined) disk.disk = {};
  if (disk.cdrom !== undefined) {
    disk.cdrom.readonly ??= true;
    disk.cdrom.tray ??= 'closed';
  }
  enable(disk.blockSize?.matchVolume);
}

function setDeviceDefaults(devices: Devices, vmi: boolean): void {
  for (const disk of devices.disks ?? []) setDiskDefaults(disk);
  if (vmi) for (const input of devices.inputs ?? []) input.bus ??= 'usb';
  for (const gpu of devices.gpus ?? []) enable(gpu.virtualGPUOptions?.display?.ramFB);
}

function setTimerDefaults(spec: VirtualMachineInstanceSpec): void {
  const timer = spec.domain.clock?.timer;
  if (timer === undefined) return;
  for (const t of [timer.hpet, timer.kvm, timer.pit, timer.rtc, timer.hyperv]) {
    if (t !== undefined) t.present ??= true;
  }
}

/** Probe timings below 1 become KubeVirt's defaults (timeout 1, period 10, success 1, failure 3). */
function setProbeDefaults(probe: JsonObject | undefined): void {
  if (probe === undefined) return;
  const defaults: [string, number][] = [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ];
  for (const [key, value] of defaults) {
    const current = probe[key];
    if (typeof current !== 'number' || current < 1) probe[key] = value;
  }
}

export interface ObjectDefaultsOptions {
  /** Fills an empty firmware.uuid (KubeVirt draws a random one; callers pass theirs so this stays pure). */
  readonly firmwareUuid?: string;
  /**
   * true for a VMI: firmware and features are created when absent and inputs get their bus. false for a VM's
   * template, where KubeVirt only defaults what is already there.
   */
  readonly vmi: boolean;
}

function setFirmwareDefaults(spec: VirtualMachineInstanceSpec, opts: ObjectDefaultsOptions): void {
  if (opts.vmi) spec.domain.firmware ??= {};
  const firmware = spec.domain.firmware;
  if (firmware === undefined || (firmware.uuid !== undefined && firmware.uuid !== '')) return;
  if (opts.firmwareUuid !== undefined) firmware.uuid = opts.firmwareUuid;
}

export function setSpecObjectDefaults(spec: VirtualMachineInstanceSpec, opts: ObjectDefaultsOptions): void {
  setFirmwareDefaults(spec, opts);
  if (opts.vmi) spec.domain.features ??= {};
  if (spec.domain.features !== undefined) setFeatureDefaults(spec.domain.features);
  setDeviceDefaults(spec.domain.devices, opts.vmi);
  setTimerDefaults(spec);
  setProbeDefaults(spec.livenessProbe);
  setProbeDefaults(spec.readinessProbe);
}
