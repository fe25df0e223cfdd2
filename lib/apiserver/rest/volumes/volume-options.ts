/**
 * The bodies of PUT {virtualmachines,virtualmachineinstances}/{name}/{addvolume,removevolume} (kubevirt
 * rest/volumes.go addVolumeRequestHandler, removeVolumeRequestHandler; the Deckhouse fork adds the containerDisk
 * source, tag v1.6.2), checked in KubeVirt's order, before the VM or VMI is read:
 * - 400 unless the HotplugVolumes or DeclarativeHotplugVolumes feature gate is on;
 * - 400 for no body at all (undefined here; Go's HTTP server never has one, an empty body decodes as EOF to
 *   empty options, so pass null for it), then for a body that does not decode;
 * - 400 for a missing name, disk or volume source (in that order);
 * then the disk is named after the volume and the source marked hotpluggable (the dataVolume if given, else the
 * persistentVolumeClaim, else the containerDisk). The result is the volume request the plan writes. Pure.
 */
import type {
  AddVolumeOptions,
  HotplugVolumeSource,
  RemoveVolumeOptions,
  VirtualMachineVolumeRequest,
} from '../../../kubevirt/index.ts';
import { decodeOptions, type DecodedAddVolumeOptions } from '../body/decode-body.ts';

type DecodedSource = NonNullable<DecodedAddVolumeOptions['volumeSource']>;
import { badRequest, isRefusal, type Refusal } from '../refusal.ts';

export type FeatureGates = ReadonlySet<string>;

export const HOTPLUG_NOT_ENABLED =
  'Enable DeclarativeHotplugVolumes or HotplugVolumes feature gate to use this API.';
export const NO_BODY = 'Request with no body, a new name is expected as the request body';

const hotplugEnabled = (gates: FeatureGates): boolean =>
  gates.has('HotplugVolumes') || gates.has('DeclarativeHotplugVolumes');

/** Hotplug into a running VMI directly (and through status.volumeRequests on a VM): the legacy gate only. */
export const ephemeralHotplug = (gates: FeatureGates): boolean => gates.has('HotplugVolumes');

function bodyRefusal(body: unknown, gates: FeatureGates): Refusal | undefined {
  if (!hotplugEnabled(gates)) return badRequest(HOTPLUG_NOT_ENABLED);
  return body === undefined ? badRequest(NO_BODY) : undefined;
}

/** The sources given, with the names Go always writes (no omitempty) read as '' when the body left them out. */
function named(source: DecodedSource): HotplugVolumeSource {
  const { dataVolume, persistentVolumeClaim, containerDisk } = source;
  return {
    ...(dataVolume !== undefined && { dataVolume: { name: '', ...dataVolume } }),
    ...(persistentVolumeClaim !== undefined && {
      persistentVolumeClaim: { claimName: '', ...persistentVolumeClaim },
    }),
    ...(containerDisk !== undefined && { containerDisk: { image: '', ...containerDisk } }),
  };
}

/** The first source given, in KubeVirt's order (dataVolume, persistentVolumeClaim, containerDisk), hotpluggable. */
function hotpluggableSource(decoded: DecodedSource): HotplugVolumeSource {
  const source = named(decoded);
  const { dataVolume, persistentVolumeClaim, containerDisk } = source;
  if (dataVolume !== undefined) return { ...source, dataVolume: { ...dataVolume, hotpluggable: true } };
  if (persistentVolumeClaim !== undefined) {
    return { ...source, persistentVolumeClaim: { ...persistentVolumeClaim, hotpluggable: true } };
  }
  if (containerDisk !== undefined)
    return { ...source, containerDisk: { ...containerDisk, hotpluggable: true } };
  return source;
}

export function addVolumeRequest(body: unknown, gates: FeatureGates): VirtualMachineVolumeRequest | Refusal {
  const refused = bodyRefusal(body, gates);
  if (refused !== undefined) return refused;
  const opts = decodeOptions('addvolume', body);
  if (isRefusal(opts)) return opts;
  const { name, disk, volumeSource } = opts;
  if (name === undefined || name === '') return badRequest('AddVolumeOptions requires name to be set');
  if (disk === undefined) return badRequest('AddVolumeOptions requires disk to not be nil');
  if (volumeSource === undefined) return badRequest('AddVolumeOptions requires VolumeSource to not be nil');
  const add: AddVolumeOptions = {
    ...opts,
    name,
    disk: { ...disk, name },
    volumeSource: hotpluggableSource(volumeSource),
  };
  return { addVolumeOptions: add };
}

export function removeVolumeRequest(
  body: unknown,
  gates: FeatureGates,
): VirtualMachineVolumeRequest | Refusal {
  const refused = bodyRefusal(body, gates);
  if (refused !== undefined) return refused;
  const opts = decodeOptions('removevolume', body);
  if (isRefusal(opts)) return opts;
  if (opts.name === undefined || opts.name === '')
    return badRequest('RemoveVolumeOptions requires name to be set');
  const remove: RemoveVolumeOptions = { ...opts, name: opts.name };
  return { removeVolumeOptions: remove };
}

/** The patch request's dryRun: the body's list when it starts with "All", else none (getDryRunOption). */
export function volumeDryRun(req: VirtualMachineVolumeRequest): readonly string[] | undefined {
  const dryRun = req.addVolumeOptions?.dryRun ?? req.removeVolumeOptions?.dryRun;
  return dryRun?.[0] === 'All' ? dryRun : undefined;
}
