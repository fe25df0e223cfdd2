/**
 * addvolume and removevolume as virtctl does them: the flags checked (name length, disk type and bus, cache),
 * the AddVolumeOptions/RemoveVolumeOptions bodies (the disk is named after --disk-name or the volume, its serial
 * defaults to that name, the source is hotpluggable), the VM's path first and the VMI's when there is no VM,
 * and the conflicts worth trying again (a concurrent change of the same spec). Pure.
 */
import { subresourcePath } from '../../kubevirt/gvr.ts';
import type { AddVolumeOptions, RemoveVolumeOptions } from '../../kubevirt/v1/subresources.ts';
import type { DriverCache } from '../../kubevirt/v1/disk.ts';
import type { HotplugVolumeSource } from '../../kubevirt/v1/volume.ts';
import { StatusError } from '../../kernel/errors/errors.ts';
import { dryRunField, type ApiCall } from '../api-call.ts';
import { usageError } from '../errors/failures.ts';

export interface AddVolumeFlags {
  readonly volumeName: string;
  readonly diskName?: string;
  readonly serial?: string;
  readonly cache?: string;
  readonly diskType: string;
  readonly bus: string;
  readonly dryRun?: boolean;
}

export type VolumeSourceKind = 'dataVolume' | 'persistentVolumeClaim';

/** Kubernetes' DNS-1035 label limit, which the disk name must keep. */
const MAX_NAME = 63;
const CACHES: readonly DriverCache[] = ['none', 'writethrough', 'writeback'];

function hotplugName(f: Pick<AddVolumeFlags, 'volumeName' | 'diskName'>): string {
  return f.diskName !== undefined && f.diskName !== '' ? f.diskName : f.volumeName;
}

/** The flags once checked, narrowed to what the body can carry. */
export interface CheckedDisk {
  readonly name: string;
  readonly diskType: 'disk' | 'lun';
  readonly bus: 'scsi' | 'virtio';
  readonly cache?: DriverCache;
}

function checkName(f: AddVolumeFlags): string {
  const name = hotplugName(f);
  if (name.length <= MAX_NAME) return name;
  throw usageError(
    name === f.volumeName
      ? `Invalid volume name ${name}, must not exceed ${MAX_NAME} characters. Use in conjunction with --disk-name to specify a shorter name`
      : `Invalid disk name ${name}, must not exceed ${MAX_NAME} characters`,
  );
}

function checkTarget(f: AddVolumeFlags): Pick<CheckedDisk, 'diskType' | 'bus'> {
  if (f.diskType === 'disk') {
    if (f.bus === 'scsi' || f.bus === 'virtio') return { diskType: 'disk', bus: f.bus };
    throw usageError(`Invalid bus type '${f.bus}' for disk. Only 'scsi' and 'virtio' are supported.`);
  }
  if (f.diskType === 'lun') {
    if (f.bus === 'scsi') return { diskType: 'lun', bus: 'scsi' };
    throw usageError(`Invalid bus type '${f.bus}' for LUN disk. Only 'scsi' bus is supported.`);
  }
  throw usageError(`Invalid disk type '${f.diskType}'. Only LUN and Disk are supported.`);
}

function checkCache(f: AddVolumeFlags): DriverCache | undefined {
  if (f.cache === undefined || f.cache === '') return undefined;
  const cache = CACHES.find((c) => c === f.cache);
  if (cache === undefined) throw usageError(`error adding volume, invalid cache value ${f.cache}`);
  return cache;
}

/** Throws virtctl's message for flags it refuses. */
export function checkAddVolumeFlags(f: AddVolumeFlags): CheckedDisk {
  const name = checkName(f);
  const target = checkTarget(f);
  const cache = checkCache(f);
  return { name, ...target, ...(cache !== undefined && { cache }) };
}

function source(kind: VolumeSourceKind, volumeName: string): HotplugVolumeSource {
  return kind === 'dataVolume'
    ? { dataVolume: { name: volumeName, hotpluggable: true } }
    : { persistentVolumeClaim: { claimName: volumeName, hotpluggable: true } };
}

export function addVolumeBody(f: AddVolumeFlags, kind: VolumeSourceKind): AddVolumeOptions {
  const d = checkAddVolumeFlags(f);
  const target = { bus: d.bus };
  return {
    name: d.name,
    disk: {
      name: '',
      ...(d.diskType === 'lun' ? { lun: target } : { disk: target }),
      serial: f.serial !== undefined && f.serial !== '' ? f.serial : d.name,
      ...(d.cache !== undefined && { cache: d.cache }),
    },
    volumeSource: source(kind, f.volumeName),
    ...dryRunField(f.dryRun),
  };
}

export function removeVolumeBody(volumeName: string, dryRun: boolean | undefined): RemoveVolumeOptions {
  return { name: volumeName, ...dryRunField(dryRun) };
}

/** The VM's call, and the VMI's to send when the VM's answers 404 (a VMI without a VM). */
export function volumeCalls(
  target: { namespace: string; name: string },
  sub: 'addvolume' | 'removevolume',
  body: unknown,
): { vm: ApiCall; vmi: ApiCall } {
  const vm = subresourcePath({ resource: 'virtualmachines', ...target }, sub);
  const vmi = subresourcePath({ resource: 'virtualmachineinstances', ...target }, sub);
  return { vm: { method: 'PUT', path: vm, body }, vmi: { method: 'PUT', path: vmi, body } };
}

/** How many times virtctl sends a volume request that lost a race with another change of the same spec. */
export const VOLUME_ATTEMPTS = 15;

const CONCURRENT = [
  'the server rejected our request due to an error in our request',
  'jsonpatch test operation does not apply',
];

/** A failed JSON-patch test (the spec changed under the request): worth sending again. */
export function isConcurrentChange(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  if (err.httpCode !== 409 && err.httpCode !== 422) return false;
  return CONCURRENT.some((text) => err.message.includes(text));
}

export function addedLine(vm: string, volume: string): string {
  return `Successfully submitted add volume request to VM ${vm} for volume ${volume}`;
}

export function removedLine(vm: string, volume: string): string {
  return `Successfully submitted remove volume request to VM ${vm} for volume ${volume}`;
}

export function notAVolumeMessage(volume: string): string {
  return `error adding volume, Volume ${volume} is not a DataVolume or PersistentVolumeClaim`;
}
