/**
 * Resource claims, host devices and resource claim requests for the addresourceclaim/removeresourceclaim tables:
 * spec options (as ./builders.ts) and the requests the api writes.
 */
import type { HostDevice } from '../v1/devices.ts';
import type { VirtualMachineResourceClaimRequest } from '../v1/vm.ts';
import type { PodResourceClaim } from '../v1/vmi-spec.ts';
import type { SpecOption } from './builders.ts';

export const withResourceClaim =
  (claim: PodResourceClaim): SpecOption =>
  (spec) => {
    (spec.resourceClaims ??= []).push(claim);
  };

export const withHostDevice =
  (device: HostDevice): SpecOption =>
  (spec) => {
    (spec.domain.devices.hostDevices ??= []).push(device);
  };

/** A DRA host device using request `gpu` of the claim of the same name. */
export const draDevice = (name: string, claimName = name): HostDevice => ({
  name,
  claimName,
  requestName: 'gpu',
});

/** A claim from a template of its own, `<name>-template`, hotpluggable unless said otherwise. */
export const templateClaim = (name: string, hotpluggable = true): PodResourceClaim => ({
  name,
  resourceClaimTemplateName: `${name}-template`,
  ...(hotpluggable && { hotpluggable }),
});

/** The add request addresourceclaim writes for `name` (claim from `<name>-template`, request `gpu`). */
export const addClaim = (
  name: string,
  o: { dryRun?: string[]; claim?: Partial<PodResourceClaim> } = {},
): VirtualMachineResourceClaimRequest => ({
  addResourceClaimOptions: {
    name,
    hostDevice: draDevice(name),
    resourceClaim: { ...templateClaim(name), ...o.claim },
    ...(o.dryRun && { dryRun: o.dryRun }),
  },
});

export const removeClaim = (name: string, dryRun?: string[]): VirtualMachineResourceClaimRequest => ({
  removeResourceClaimOptions: { name, ...(dryRun && { dryRun }) },
});
