/**
 * spec.volumes (KubeVirt vmi-create-admitter.go validateVolumes, validateContainerDisks): unique names, exactly
 * one source, cloud-init data, the gates of downwardMetrics and hostDisk volumes, required names, at most one
 * serviceAccount, downwardMetrics and memoryDump volume, and containerDisk paths.
 */
import { isZeroQuantity } from '../quantity.ts';
import type { Volume } from '../v1/volume.ts';
import { child, invalid, notFound, required, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';
import { cloudInitCauses } from './vmi-cloud-init.ts';
import { absolutePathCauses } from './paths.ts';
import type { SpecRule } from './rule.ts';

const SOURCES = [
  'persistentVolumeClaim',
  'sysprep',
  'cloudInitNoCloud',
  'cloudInitConfigDrive',
  'containerDisk',
  'ephemeral',
  'emptyDisk',
  'hostDisk',
  'dataVolume',
  'configMap',
  'secret',
  'downwardAPI',
  'serviceAccount',
  'downwardMetrics',
  'memoryDump',
] as const satisfies readonly (keyof Volume)[];

const requiredName = (f: string): Causes => [invalid(f, `${f} is a required field`)];

function hostDiskCauses(volume: Volume, at: string, ctx: ValidationContext): Causes {
  const hostDisk = volume.hostDisk;
  if (hostDisk === undefined) return [];
  const causes: Causes = [];
  if (!gateEnabled(ctx, GATES.HOST_DISK)) causes.push(invalid(at, 'HostDisk feature gate is not enabled'));
  const pathF = child(at, 'hostDisk', 'path');
  if (hostDisk.path === '') causes.push(notFound(pathF, `${pathF} is required for hostDisk volume`));
  const typeF = child(at, 'hostDisk', 'type');
  const type: string = hostDisk.type;
  if (type !== 'Disk' && type !== 'DiskOrCreate') {
    causes.push(invalid(typeF, `${typeF} has invalid value '${type}', allowed are 'Disk' or 'DiskOrCreate'`));
  }
  const capF = child(at, 'hostDisk', 'capacity');
  if (type === 'Disk' && !isZeroQuantity(hostDisk.capacity)) {
    causes.push(invalid(capF, `${capF} is allowed to pass only with ${typeF} equal to 'DiskOrCreate'`));
  }
  return causes;
}

function namedSourceCauses(volume: Volume, at: string): Causes {
  const causes: Causes = [];
  if (volume.configMap !== undefined && (volume.configMap.name ?? '') === '') {
    causes.push(...requiredName(child(at, 'configMap', 'name')));
  }
  if (volume.secret !== undefined && (volume.secret.secretName ?? '') === '') {
    causes.push(...requiredName(child(at, 'secret', 'secretName')));
  }
  if (volume.serviceAccount !== undefined && (volume.serviceAccount.serviceAccountName ?? '') === '') {
    causes.push(...requiredName(child(at, 'serviceAccount', 'serviceAccountName')));
  }
  return causes;
}

function volumeCauses(volume: Volume, at: string, ctx: ValidationContext): Causes {
  const causes: Causes = [];
  if (volume.dataVolume !== undefined && volume.dataVolume.name === '') {
    causes.push(required(child(at, 'name'), "DataVolume 'name' must be set"));
  }
  if (SOURCES.filter((s) => volume[s] !== undefined).length !== 1) {
    causes.push(invalid(at, `${at} must have exactly one source type set`));
  }
  causes.push(...cloudInitCauses(volume, at));
  if (volume.downwardMetrics !== undefined && !gateEnabled(ctx, GATES.DOWNWARD_METRICS)) {
    causes.push(
      invalid(at, 'downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled.'),
    );
  }
  return [...causes, ...hostDiskCauses(volume, at, ctx), ...namedSourceCauses(volume, at)];
}

function atMostOne(volumes: readonly Volume[], base: string): Causes {
  const count = (s: (typeof SOURCES)[number]): number => volumes.filter((v) => v[s] !== undefined).length;
  const causes: Causes = [];
  if (count('serviceAccount') > 1) {
    causes.push(invalid(base, `${base} must have max one serviceAccount volume set`));
  }
  if (count('downwardMetrics') > 1) {
    causes.push(invalid(base, `${base} must have max one downwardMetric volume set`));
  }
  if (count('memoryDump') > 1) causes.push(invalid(base, `${base} must have max one memory dump volume set`));
  return causes;
}

export const volumes: SpecRule = (spec, ctx, path) => {
  const list = spec.volumes ?? [];
  const base = child(path, 'volumes');
  const first = new Map<string, number>();
  const each = list.flatMap((volume, i) => {
    const at = `${base}[${i}]`;
    const other = first.get(volume.name);
    if (other === undefined) first.set(volume.name, i);
    const dup =
      other === undefined
        ? []
        : [invalid(child(at, 'name'), `${at} and ${base}[${other}] must not have the same Name.`)];
    return [...dup, ...volumeCauses(volume, at, ctx)];
  });
  return [...each, ...atMostOne(list, base)];
};

export const containerDiskPaths: SpecRule = (spec, _ctx, path) =>
  (spec.volumes ?? []).flatMap((volume, i) => {
    const diskPath = volume.containerDisk?.path ?? '';
    return diskPath === ''
      ? []
      : absolutePathCauses(child(path, 'volumes') + `[${i}].containerDisk`, diskPath);
  });
