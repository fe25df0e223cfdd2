/**
 * status.volumeRequests of a VM (KubeVirt vms-admitter.go validateVolumeRequests, with the Deckhouse fork's
 * containerDisk source): each request adds or removes, once per volume; an added volume has a hotpluggable
 * disk and does not clash with a volume of its name on the template or the running VMI; then the specs with
 * the requests applied are checked as every kind of pending request is (vm-pending-requests.ts). The request
 * causes sit at KubeVirt's `Status.volumeRequests`; "aleady" is KubeVirt's spelling.
 */
import type { VirtualMachineVolumeRequest } from '../v1/vm.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { Volume } from '../v1/volume.ts';
import { applyVolumeRequest } from '../volume-requests.ts';
import { invalid, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';
import { hotplugDiskCauses } from './hotplug-disk.ts';
import { pendingRequestCauses, type RunningVmi } from './vm-pending-requests.ts';

const FIELD = 'Status.volumeRequests';

type AddOptions = NonNullable<VirtualMachineVolumeRequest['addVolumeOptions']>;

/** The volume an add request describes, as KubeVirt compares it (hotpluggable as sent). */
function requestedVolume(add: AddOptions): Record<string, unknown> {
  const src = add.volumeSource;
  if (src.persistentVolumeClaim !== undefined)
    return { name: add.name, persistentVolumeClaim: src.persistentVolumeClaim };
  if (src.dataVolume !== undefined) return { name: add.name, dataVolume: src.dataVolume };
  if (src.containerDisk !== undefined) return { name: add.name, containerDisk: src.containerDisk };
  return { name: add.name };
}

const fail = (message: string): Causes => [invalid(FIELD, message)];

interface Seen {
  readonly adds: Set<string>;
  readonly removes: Set<string>;
  readonly template: ReadonlyMap<string, Volume>;
  readonly vmi: ReadonlyMap<string, Volume>;
}

function addCauses(add: AddOptions, seen: Seen): Causes {
  const name = add.name;
  if (seen.adds.has(name)) return fail(`AddVolume request for [${name}] aleady exists`);
  const disk: AddOptions['disk'] | undefined = add.disk;
  const diskCauses = hotplugDiskCauses(disk, name, 'AddVolume request', FIELD);
  if (diskCauses.length > 0) return diskCauses;
  const volume = requestedVolume(add);
  const onTemplate = seen.template.get(name);
  if (onTemplate !== undefined && !semanticEqual(volume, onTemplate)) {
    return fail(
      `AddVolume request for [${name}] conflicts with an existing volume of the same name on the vmi template.`,
    );
  }
  const onVmi = seen.vmi.get(name);
  if (onVmi !== undefined && !semanticEqual(volume, onVmi)) {
    return fail(
      `AddVolume request for [${name}] conflicts with an existing volume of the same name on currently running vmi`,
    );
  }
  seen.adds.add(name);
  return [];
}

function requestCauses(req: VirtualMachineVolumeRequest, seen: Seen): Causes {
  const { addVolumeOptions: add, removeVolumeOptions: remove } = req;
  if (add !== undefined && remove !== undefined) {
    return fail('VolumeRequests require either addVolumeOptions or removeVolumeOptions to be set, not both');
  }
  if (add !== undefined) return addCauses(add, seen);
  if (remove === undefined) {
    return fail('VolumeRequests require one of either addVolumeOptions or removeVolumeOptions to be set');
  }
  if (seen.removes.has(remove.name)) return fail(`RemoveVolume request for [${remove.name}] aleady exists`);
  seen.removes.add(remove.name);
  return [];
}

const byName = (spec: VirtualMachineInstanceSpec | undefined): Map<string, Volume> =>
  new Map((spec?.volumes ?? []).map((v) => [v.name, v]));

export function volumeRequestCauses(
  template: VirtualMachineInstanceSpec,
  requests: readonly VirtualMachineVolumeRequest[] | undefined,
  vmi: RunningVmi | undefined,
  ctx: ValidationContext,
): Causes {
  const seen: Seen = {
    adds: new Set(),
    removes: new Set(),
    template: byName(template),
    vmi: byName(vmi?.spec),
  };
  return pendingRequestCauses({ template, vmi }, requests, ctx, {
    what: 'volume requests',
    check: (req) => requestCauses(req, seen),
    apply: applyVolumeRequest,
  });
}
