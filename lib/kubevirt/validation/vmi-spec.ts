/**
 * The rules a VMI spec obeys wherever it appears, a VMI's spec or a VM's template (KubeVirt
 * vmi-create-admitter.go ValidateVirtualMachineInstanceSpec), in KubeVirt's order.
 *
 * Left out: spec.affinity and spec.topologySpreadConstraints (Kubernetes' own validation, which KubeVirt
 * copies; our types keep both opaque) and validateAccessCredentials (accessCredentials are opaque too).
 */
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { runRules, type SpecRule } from './rule.ts';
import { cpuFeaturePolicies, cpuHotplug, cpuPinning, isolatorThread, numa, realtime } from './vmi-cpu.ts';
import {
  inputDevices,
  ioThreadsPolicy,
  mdevRamfb,
  panicDevices,
  soundDevice,
  videoConfig,
} from './vmi-devices.ts';
import { bootOrder } from './vmi-disk-volumes.ts';
import { disks } from './vmi-disks.ts';
import {
  architectureGate,
  emulatedMachine,
  evictionStrategy,
  firmware,
  firmwareAcpi,
  hostname,
  launchSecurity,
  startStrategy,
  subdomain,
} from './vmi-domain.ts';
import {
  downwardMetricsGate,
  draGpus,
  hostDevicesGate,
  persistentReservationGate,
  virtiofsGates,
  vsockGate,
} from './vmi-gated.ts';
import { networks } from './vmi-network.ts';
import { dnsConfig, dnsPolicy, probes } from './vmi-probes-dns.ts';
import {
  cpuLimitNotNegative,
  cpuRequestNotNegative,
  cpuRequestWithinLimit,
  guestMemoryLimit,
  hugepagesRequests,
  memoryLimits,
  memoryRequests,
} from './vmi-resources.ts';
import { containerDiskPaths, volumes } from './vmi-volumes.ts';

const SPEC_RULES: readonly SpecRule[] = [
  hostname,
  subdomain,
  memoryRequests,
  memoryLimits,
  hugepagesRequests,
  guestMemoryLimit,
  emulatedMachine,
  firmwareAcpi,
  cpuRequestNotNegative,
  cpuLimitNotNegative,
  cpuRequestWithinLimit,
  cpuPinning,
  numa,
  isolatorThread,
  cpuFeaturePolicies,
  cpuHotplug,
  startStrategy,
  realtime,
  architectureGate,
  ...networks,
  draGpus,
  bootOrder,
  inputDevices,
  ioThreadsPolicy,
  probes,
  disks,
  firmware,
  volumes,
  containerDiskPaths,
  dnsPolicy,
  dnsConfig,
  evictionStrategy,
  mdevRamfb,
  hostDevicesGate,
  soundDevice,
  launchSecurity,
  vsockGate,
  persistentReservationGate,
  downwardMetricsGate,
  virtiofsGates,
  videoConfig,
  panicDevices,
];

/** Every cause of a VMI spec at `path` ('spec' for a VMI, 'spec.template.spec' for a VM). */
export function validateVmiSpec(
  spec: VirtualMachineInstanceSpec,
  ctx: ValidationContext,
  path = 'spec',
): Causes {
  return runRules(SPEC_RULES, spec, ctx, path);
}
