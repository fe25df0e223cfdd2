/**
 * status.volumeRequests of a VM (KubeVirt vms-admitter.go validateVolumeRequests, with the Deckhouse fork's
 * containerDisk source): each request adds or removes, once per volume; an added volume has a hotpluggable
 * disk and does not clash with a volume of its name on the template or the running VMI. The template, and the
 * running VMI, with the requests applied must pass the spec rules (both at `spec.template.spec`, as KubeVirt
 * reports them), and a migrating VMI takes no requests. KubeVirt stops at the first problem; so does this.
 * The request causes sit at KubeVirt's `Status.volumeRequests`; "aleady" is KubeVirt's spelling.
 */
import type { VirtualMachineVolumeRequest } from '../v1/vm.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import type { Volume } from '../v1/volume.ts';
import { applyVolumeRequest } from '../volume-requests.ts';
import { invalid, notSupported, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';
import { hotplugDiskCauses } from './hotplug-disk.ts';
import { validateVmiSpec } from './vmi-spec.ts';

const FIELD = 'Status.volumeRequests';
const SPEC_PATH = 'spec.template.spec';

/** The VMI of a VM as the VM check needs it: passed when the VM is ready and its VMI is not being deleted. */
export interface RunningVmi {
  readonly spec: VirtualMachineInstanceSpec;
  /** The VMI's migration has started and not ended. */
  readonly migrating: boolean;
}

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

/** The template and the VMI spec with every request applied, or the first request's causes. */
function applied(
  template: VirtualMachineInstanceSpec,
  requests: readonly VirtualMachineVolumeRequest[],
  vmi: RunningVmi | undefined,
): Causes | { template: VirtualMachineInstanceSpec; vmi: VirtualMachineInstanceSpec | undefined } {
  const seen: Seen = {
    adds: new Set(),
    removes: new Set(),
    template: byName(template),
    vmi: byName(vmi?.spec),
  };
  let next = { template, vmi: vmi?.spec };
  for (const req of requests) {
    const causes = requestCauses(req, seen);
    if (causes.length > 0) return causes;
    next = {
      template: applyVolumeRequest(next.template, req),
      vmi: next.vmi === undefined ? undefined : applyVolumeRequest(next.vmi, req),
    };
  }
  return next;
}

export function volumeRequestCauses(
  template: VirtualMachineInstanceSpec,
  requests: readonly VirtualMachineVolumeRequest[] | undefined,
  vmi: RunningVmi | undefined,
  ctx: ValidationContext,
): Causes {
  if (requests === undefined || requests.length === 0) return [];
  const next = applied(template, requests, vmi);
  if (Array.isArray(next)) return next;
  const specs = next.vmi === undefined ? [next.template] : [next.template, next.vmi];
  for (const spec of specs) {
    const causes = validateVmiSpec(spec, ctx, SPEC_PATH);
    if (causes.length > 0) return causes;
  }
  return vmi?.migrating === true
    ? [notSupported('spec', 'Cannot handle volume requests while VMI migration is in progress')]
    : [];
}
