/**
 * Devices a feature gate must allow (KubeVirt vmi-create-admitter.go validateHostDevicesWithPassthroughEnabled,
 * validateVSOCK, validatePersistentReservation, validateDownwardMetrics, validateFilesystemsWithVirtIOFSEnabled,
 * and pkg/dra/admitter validateCreationDRA for GPUs). The DRA causes' `spec.spec.domain…` field is KubeVirt's.
 */
import { hasClaimRequest, isDraDevice } from '../dra-devices.ts';
import type { Volume } from '../v1/volume.ts';
import { child, invalid, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';
import type { SpecRule } from './rule.ts';

const disabled = (gate: string): string => `${gate} feature gate is not enabled in kubevirt-config`;

export const hostDevicesGate: SpecRule = (spec, ctx, path) =>
  spec.domain.devices.hostDevices !== undefined && !gateEnabled(ctx, GATES.HOST_DEVICES)
    ? [invalid(child(path, 'HostDevices'), 'Host Devices feature gate is not enabled in kubevirt-config')]
    : [];

export const vsockGate: SpecRule = (spec, ctx, path) =>
  spec.domain.devices.autoattachVSOCK === true && !gateEnabled(ctx, GATES.VSOCK)
    ? [invalid(child(path, 'domain', 'devices', 'autoattachVSOCK'), disabled(GATES.VSOCK))]
    : [];

export const persistentReservationGate: SpecRule = (spec, ctx, path) =>
  (spec.domain.devices.disks ?? []).some((d) => d.lun?.reservation === true) &&
  !gateEnabled(ctx, GATES.PERSISTENT_RESERVATION)
    ? [
        invalid(
          child(path, 'domain', 'devices', 'disks', 'luns', 'reservation'),
          disabled(GATES.PERSISTENT_RESERVATION),
        ),
      ]
    : [];

export const downwardMetricsGate: SpecRule = (spec, ctx, path) =>
  spec.domain.devices.downwardMetrics !== undefined && !gateEnabled(ctx, GATES.DOWNWARD_METRICS)
    ? [
        invalid(
          child(path, 'domain', 'devices', 'downwardMetrics'),
          'downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled',
        ),
      ]
    : [];

const isConfigVolume = (v: Volume): boolean =>
  [v.configMap, v.secret, v.serviceAccount, v.downwardAPI].some((s) => s !== undefined);
const isStorageVolume = (v: Volume): boolean =>
  v.persistentVolumeClaim !== undefined || v.dataVolume !== undefined;

function virtiofsCause(volume: Volume, ctx: ValidationContext, f: string): Causes {
  const old = gateEnabled(ctx, GATES.VIRTIOFS_OLD);
  if (isConfigVolume(volume) && !gateEnabled(ctx, GATES.VIRTIOFS_CONFIG_VOLUMES) && !old) {
    return [invalid(f, 'virtiofs is not allowed: virtiofs feature gate is not enabled for config volumes')];
  }
  if (isStorageVolume(volume) && !gateEnabled(ctx, GATES.VIRTIOFS_STORAGE_VOLUMES) && !old) {
    return [invalid(f, 'virtiofs is not allowed: virtiofs feature gate is not enabled for PVC')];
  }
  return [];
}

export const virtiofsGates: SpecRule = (spec, ctx, path) => {
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  const f = child(path, 'domain', 'devices', 'filesystems');
  return (spec.domain.devices.filesystems ?? []).flatMap((fs) => {
    const volume = volumes.get(fs.name);
    return volume === undefined ? [] : virtiofsCause(volume, ctx, f);
  });
};

export const draGpus: SpecRule = (spec, ctx, path) => {
  const gpus = spec.domain.devices.gpus ?? [];
  const f = child(path, 'spec', 'domain', 'devices', 'gpus');
  const causes: Causes = [];
  for (const gpu of gpus.filter((g) => !isDraDevice(g))) {
    if ((gpu.deviceName ?? '') === '') {
      return [...causes, invalid(f, 'vmi.spec.domain.devices.gpus contains GPUs without deviceName')];
    }
    if (hasClaimRequest(gpu)) {
      causes.push(
        invalid(f, 'vmi.spec.domain.devices.gpus contains GPUs with both deviceName and claimRequest'),
      );
    }
  }
  const dra = gpus.filter(isDraDevice);
  if (dra.length > 0 && !gateEnabled(ctx, GATES.GPUS_WITH_DRA)) {
    return [
      ...causes,
      invalid(f, 'vmi.spec.domain.devices.gpus contains DRA enabled GPUs but feature gate is not enabled'),
    ];
  }
  const claims = new Set((spec.resourceClaims ?? []).map((c) => c.name));
  if (dra.some((g) => !claims.has(g.claimName ?? ''))) {
    causes.push(
      invalid(
        child(path, 'resourceClaims'),
        'vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus',
      ),
    );
  }
  return causes;
};
