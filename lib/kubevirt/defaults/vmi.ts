/**
 * A new VMI with KubeVirt's defaults, in the order its mutating webhook applies them (pure: the input is not
 * touched). withVmiCreateDefaults adds what the webhook sets on create only: the finalizer, phase Pending with
 * its transition time, and the launcher's runtime user.
 */
import { FINALIZERS } from '../labels.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { VirtualMachineInstanceStatus } from '../v1/vmi-status.ts';
import { setArchDefaults, setArchFeatureDefaults } from './arch.ts';
import {
  DEFAULT_CLUSTER_DEFAULTS,
  DEFAULT_GRACE_PERIOD_SECONDS,
  NON_ROOT_UID,
  type ClusterDefaults,
} from './cluster.ts';
import { setHotplugDefaults } from './hotplug.ts';
import { setHypervDependencies } from './hyperv.ts';
import { setSpecObjectDefaults } from './object.ts';
import { setVmiSpecDefaults } from './vmi-spec.ts';

export interface VmiDefaultsOptions {
  /** firmware.uuid for a VMI without one (KubeVirt draws a random UUID). */
  readonly firmwareUuid?: string;
}

function setStatusDefaults(spec: VirtualMachineInstanceSpec, status: VirtualMachineInstanceStatus): void {
  const guest = spec.domain.memory?.guest;
  if (guest !== undefined) status.memory = { guestAtBoot: guest, guestCurrent: guest, guestRequested: guest };
  const cpu = spec.domain.cpu;
  if (cpu !== undefined && status.currentCPUTopology === undefined) {
    status.currentCPUTopology = {
      ...(cpu.sockets !== undefined && { sockets: cpu.sockets }),
      ...(cpu.cores !== undefined && { cores: cpu.cores }),
      ...(cpu.threads !== undefined && { threads: cpu.threads }),
    };
  }
}

/** KubeVirt's SetDefaultVirtualMachineInstance. Throws a 400 StatusError when no default interface is allowed. */
export function withVmiDefaults(
  vmi: VirtualMachineInstance,
  cfg: ClusterDefaults = DEFAULT_CLUSTER_DEFAULTS,
  opts: VmiDefaultsOptions = {},
): VirtualMachineInstance {
  const out = structuredClone(vmi);
  const spec = out.spec;
  setVmiSpecDefaults(spec, cfg);
  setArchFeatureDefaults(spec);
  setSpecObjectDefaults(spec, {
    vmi: true,
    ...(opts.firmwareUuid !== undefined && { firmwareUuid: opts.firmwareUuid }),
  });
  setHypervDependencies(spec);
  setArchDefaults(spec, cfg);
  setStatusDefaults(spec, (out.status ??= {}));
  setHotplugDefaults(spec, cfg);
  return out;
}

export interface VmiCreateOptions extends VmiDefaultsOptions {
  /** RFC 3339 time of the request (the Pending transition). */
  readonly now: string;
}

export function withVmiCreateDefaults(
  vmi: VirtualMachineInstance,
  cfg: ClusterDefaults,
  opts: VmiCreateOptions,
): VirtualMachineInstance {
  const out = withVmiDefaults(vmi, cfg, opts);
  const finalizers = (out.metadata.finalizers ??= []);
  if (!finalizers.includes(FINALIZERS.VIRTUAL_MACHINE_INSTANCE))
    finalizers.push(FINALIZERS.VIRTUAL_MACHINE_INSTANCE);
  const status = (out.status ??= {});
  status.phase = 'Pending';
  (status.phaseTransitionTimestamps ??= []).push({ phase: 'Pending', phaseTransitionTimestamp: opts.now });
  status.runtimeUser = cfg.root ? 0 : NON_ROOT_UID;
  return out;
}

/** Seconds the guest gets to shut down before it is stopped hard. */
export function terminationGracePeriodSeconds(
  spec: Pick<VirtualMachineInstanceSpec, 'terminationGracePeriodSeconds'>,
): number {
  return spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
}
