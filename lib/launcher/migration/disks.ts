/**
 * Which of the domain's disks a migration copies (kubevirt live-migration-source.go
 * classifyVolumesForMigration, getDiskTargetsForMigration): a claim or a shared host disk is the same storage
 * on both sides and stays, unless the VMI lists it among its migrated volumes; so does a hotplugged
 * containerDisk, which the target's handler mounts there too (the Deckhouse fork's rule). A disk the launcher
 * generates (config ISOs, the containerDisk's overlay) is copied even when the guest sees it read-only; every
 * other local file or block disk is copied too, never a CD-ROM. The answer is the disks' target device names,
 * as libvirt's migrate_disks wants them. Pure.
 */
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { child, children, parseXml } from '../xml-read.ts';

/**
 * What a migration does with a volume's disk: `shared` storage (a claim, a shared host disk, a hotplugged
 * containerDisk) stays, a `generated` disk is copied even read-only, a `migrated` claim or host disk
 * (status.migratedVolumes) is copied; volumes in no class (an emptyDisk, an ephemeral claim's overlay, a host
 * disk not shared) are copied unless read-only.
 */
export type VolumeMigrationClass = 'shared' | 'generated' | 'migrated';

/** Volume sources whose disk the launcher makes from what the Pod mounts (KubeVirt's generated volumes). */
const GENERATED = [
  'configMap',
  'secret',
  'downwardAPI',
  'serviceAccount',
  'cloudInitNoCloud',
  'cloudInitConfigDrive',
] as const satisfies readonly (keyof Volume)[];

function volumeClass(v: Volume, migrated: ReadonlySet<string>): VolumeMigrationClass | undefined {
  if (v.persistentVolumeClaim !== undefined || v.dataVolume !== undefined)
    return migrated.has(v.name) ? 'migrated' : 'shared';
  if (v.hostDisk !== undefined) {
    if (migrated.has(v.name)) return 'migrated';
    return v.hostDisk.shared === true ? 'shared' : undefined;
  }
  if (v.containerDisk !== undefined) return v.containerDisk.hotpluggable === true ? 'shared' : 'generated';
  return GENERATED.some((k) => v[k] !== undefined) ? 'generated' : undefined;
}

export function classifyVolumesForMigration(vmi: VirtualMachineInstance): Map<string, VolumeMigrationClass> {
  const migrated = new Set<string>();
  for (const m of vmi.status?.migratedVolumes ?? []) {
    const name = m['volumeName'];
    if (typeof name === 'string') migrated.add(name);
  }
  const out = new Map<string, VolumeMigrationClass>();
  for (const v of vmi.spec.volumes ?? []) {
    const cls = volumeClass(v, migrated);
    if (cls !== undefined) out.set(v.name, cls);
  }
  return out;
}

/** What the choice reads of one `<disk>` of the domain XML. */
interface DomainDisk {
  readonly type: string;
  readonly device: string;
  readonly readOnly: boolean;
  /** The volume's name: the alias without the user-alias prefix `ua-`. */
  readonly volume: string;
  readonly target: string;
}

const USER_ALIAS = 'ua-';

function domainDisks(xml: string): DomainDisk[] {
  return children(child(parseXml(xml), 'devices'), 'disk').map((d) => {
    const alias = child(d, 'alias')?.attrs['name'] ?? '';
    return {
      type: d.attrs['type'] ?? '',
      device: d.attrs['device'] ?? 'disk',
      readOnly: child(d, 'readonly') !== undefined,
      volume: alias.startsWith(USER_ALIAS) ? alias.slice(USER_ALIAS.length) : alias,
      target: child(d, 'target')?.attrs['dev'] ?? '',
    };
  });
}

/** The target devices (vda, sdb, ...) of the disks the migration copies, in the domain's order. */
export function disksToCopy(vmi: VirtualMachineInstance, domainXml: string): string[] {
  const classes = classifyVolumesForMigration(vmi);
  const copied: string[] = [];
  for (const d of domainDisks(domainXml)) {
    const cls = classes.get(d.volume);
    if (d.device === 'cdrom') continue;
    if (d.readOnly && cls !== 'generated') continue;
    if ((d.type !== 'file' && d.type !== 'block') || cls === 'shared') continue;
    if (d.target !== '') copied.push(d.target);
  }
  return copied;
}
