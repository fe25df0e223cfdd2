/**
 * Volume and disk changes KubeVirt's own service accounts may make to a running VMI (KubeVirt
 * vmi-update-admitter.go admitStorageUpdate, with the Deckhouse fork's changes: disks compare without their
 * serial, and a hotplugged volume may be a containerDisk). A volume is permanent when the old VMI's
 * volumeStatus lists it without hotplugVolume. Permanent volumes and their disks stay as they are (unless the
 * volume is being migrated); hotplugged ones keep their disk; a new one is a PVC, DataVolume, memory dump or
 * containerDisk with a hotpluggable disk. KubeVirt walks Go maps here and stops at the first problem; this
 * walks the volumes in spec order. The causes have no field.
 */
import type { Disk } from '../v1/disk.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { Volume } from '../v1/volume.ts';
import { invalid, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';
import { hotplugDiskCauses } from './hotplug-disk.ts';

type Vmi = Pick<VirtualMachineInstance, 'spec' | 'status'>;

const fail = (message: string): Causes => [invalid('', message)];

function countMismatch(vmi: Vmi, ctx: ValidationContext): Causes {
  const volumes = new Set(
    (vmi.spec.volumes ?? []).filter((v) => v.memoryDump === undefined).map((v) => v.name),
  );
  const declarative = gateEnabled(ctx, GATES.DECLARATIVE_HOTPLUG_VOLUMES);
  const disks = (vmi.spec.domain.devices.disks ?? []).filter(
    (d) => !(d.cdrom !== undefined && declarative && !volumes.has(d.name)),
  );
  const required = (vmi.spec.domain.devices.filesystems ?? []).length + disks.length;
  return required === volumes.size
    ? []
    : fail(`mismatch between volumes declared (${volumes.size}) and required (${required})`);
}

/** Disks equal but for their serial (the fork's equalDiskIgnoreSerial). */
function sameDisk(a: Disk | undefined, b: Disk | undefined): boolean {
  const strip = (d: Disk | undefined): Disk | undefined =>
    d === undefined ? undefined : { ...d, serial: '' };
  return semanticEqual(strip(a), strip(b));
}

interface Storage {
  readonly permanent: ReadonlySet<string>;
  readonly migrated: ReadonlySet<string>;
  readonly oldVolumes: ReadonlyMap<string, Volume>;
  readonly oldDisks: ReadonlyMap<string, Disk>;
  readonly newDisks: ReadonlyMap<string, Disk>;
}

function migratedNames(vmi: Vmi): Set<string> {
  const names = (vmi.status?.migratedVolumes ?? []).map((m) => m['volumeName']);
  return new Set(names.filter((n): n is string => typeof n === 'string'));
}

const volumesByName = (list: readonly Volume[] | undefined): Map<string, Volume> =>
  new Map((list ?? []).map((v) => [v.name, v]));

/** getDiskMap: disks by name, nameless ones left out. */
const disksByName = (list: readonly Disk[] | undefined): Map<string, Disk> =>
  new Map((list ?? []).filter((d) => d.name !== '').map((d) => [d.name, d]));

function permanentCauses(newVolumes: readonly Volume[], s: Storage): Causes {
  const oldPermanent = [...s.oldVolumes.keys()].filter((n) => s.permanent.has(n));
  const newPermanent = newVolumes.filter((v) => s.permanent.has(v.name));
  if (new Set(newPermanent.map((v) => v.name)).size !== oldPermanent.length) {
    return fail('Number of permanent volumes has changed');
  }
  for (const v of newPermanent) {
    const old = s.oldVolumes.get(v.name);
    if (old === undefined) return fail(`permanent volume ${v.name}, not found`);
    if (s.migrated.has(v.name)) continue;
    if (!semanticEqual(v, old)) return fail(`permanent volume ${v.name}, changed`);
    if (!sameDisk(s.newDisks.get(v.name), s.oldDisks.get(v.name)))
      return fail(`permanent disk ${v.name}, changed`);
  }
  return [];
}

function keptHotplugCauses(v: Volume, old: Volume, s: Storage): Causes {
  if (!semanticEqual(v, old) && !s.migrated.has(v.name)) return fail(`hotplug volume ${v.name}, changed`);
  if (v.memoryDump !== undefined) return [];
  if (!s.newDisks.has(v.name)) return fail(`volume ${v.name} doesn't have a matching disk`);
  return sameDisk(s.newDisks.get(v.name), s.oldDisks.get(v.name))
    ? []
    : fail(`hotplug disk ${v.name}, changed`);
}

function newHotplugCauses(v: Volume, s: Storage): Causes {
  const hotpluggable = [v.dataVolume, v.persistentVolumeClaim, v.memoryDump, v.containerDisk];
  if (hotpluggable.every((src) => src === undefined)) {
    return fail(`volume ${v.name} is not a PVC,DataVolume,MemoryDumpVolume or ContainerDisk`);
  }
  if (v.memoryDump !== undefined) return [];
  const disk = s.newDisks.get(v.name);
  if (disk === undefined) return fail(`disk ${v.name} does not exist`);
  return s.oldDisks.has(v.name) ? [] : hotplugDiskCauses(disk, v.name, 'Hotplug configuration', '');
}

function hotplugCauses(newVolumes: readonly Volume[], s: Storage): Causes {
  for (const v of newVolumes.filter((x) => !s.permanent.has(x.name))) {
    const old = s.oldVolumes.get(v.name);
    const causes = old !== undefined ? keptHotplugCauses(v, old, s) : newHotplugCauses(v, s);
    if (causes.length > 0) return causes;
  }
  return [];
}

/** The storage causes of an update by KubeVirt, before the new spec is validated as a whole. */
export function storageUpdateCauses(oldVmi: Vmi, newVmi: Vmi, ctx: ValidationContext): Causes {
  const mismatch = countMismatch(newVmi, ctx);
  if (mismatch.length > 0) return mismatch;
  const permanent = new Set(
    (oldVmi.status?.volumeStatus ?? []).filter((st) => st.hotplugVolume === undefined).map((st) => st.name),
  );
  const s: Storage = {
    permanent,
    migrated: migratedNames(newVmi),
    oldVolumes: volumesByName(oldVmi.spec.volumes),
    oldDisks: disksByName(oldVmi.spec.domain.devices.disks),
    newDisks: disksByName(newVmi.spec.domain.devices.disks),
  };
  const newVolumes = newVmi.spec.volumes ?? [];
  const perm = permanentCauses(newVolumes, s);
  return perm.length > 0 ? perm : hotplugCauses(newVolumes, s);
}
