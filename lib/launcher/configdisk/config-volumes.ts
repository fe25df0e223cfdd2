/**
 * ISO images of configMap, secret, downwardAPI and serviceAccount volumes used as disks (kubevirt pkg/config
 * createIsoDisksForConfigVolumes): each holds the files of the directory the Pod mounts for the volume
 * (lib/controller/vmi/pod-volumes.ts) — `<private>/{config-map,secret,downwardapi}/<volume>`, and the service
 * account token at `<root>/var/run/secrets/kubernetes.io/serviceaccount` — with the volume's volumeLabel as
 * volume id (default `cfgdata`). Only volumes a disk uses get an image. Kubelet's own `..data` and
 * timestamped entries are left out (KubeVirt copies them too; a guest has no use for them). Pure.
 */
import path from 'node:path';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import type { ConfigVolumeKind, PodLayout } from '../../rpc/index.ts';
import { ConfigDiskError, isAtomicWriterEntry, type IsoImage, type SourceFs } from './image.ts';

const DEFAULT_CONFIG_LABEL = 'cfgdata';
const SERVICE_ACCOUNT_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

export interface ConfigVolumeOptions {
  readonly vmi: VirtualMachineInstance;
  /** Absolute prefix of the launcher's paths ('/' in a Pod). */
  readonly root: string;
  /** `<root>/var/run/kubevirt-private`. */
  /** Where the launcher Pod mounts the config volumes (lib/rpc/pod-layout.ts). */
  readonly layout: Pick<PodLayout, 'configVolumeDir'>;
  /** Disk name → the image file the domain gives it. */
  readonly diskFiles: ReadonlyMap<string, string>;
  readonly fs: SourceFs;
}

interface Mounted {
  /** The volume source's key in spec.volumes[i]. */
  readonly kind: 'configMap' | 'secret' | 'downwardAPI' | 'serviceAccount';
  readonly dir: string;
  readonly label: string;
}

function mounted(volume: Volume, opts: ConfigVolumeOptions): Mounted | undefined {
  const under = (kind: ConfigVolumeKind): string => opts.layout.configVolumeDir(kind, volume.name);
  const label = (l: string | undefined): string => (l === undefined || l === '' ? DEFAULT_CONFIG_LABEL : l);
  if (volume.configMap !== undefined) {
    return { kind: 'configMap', dir: under('config-map'), label: label(volume.configMap.volumeLabel) };
  }
  if (volume.secret !== undefined)
    return { kind: 'secret', dir: under('secret'), label: label(volume.secret.volumeLabel) };
  if (volume.downwardAPI !== undefined) {
    return { kind: 'downwardAPI', dir: under('downwardapi'), label: label(volume.downwardAPI.volumeLabel) };
  }
  if (volume.serviceAccount !== undefined) {
    return {
      kind: 'serviceAccount',
      dir: path.join(opts.root, SERVICE_ACCOUNT_DIR),
      label: DEFAULT_CONFIG_LABEL,
    };
  }
  return undefined;
}

export function configVolumeImages(opts: ConfigVolumeOptions): IsoImage[] {
  const out: IsoImage[] = [];
  (opts.vmi.spec.volumes ?? []).forEach((v, index) => {
    const m = mounted(v, opts);
    const isoPath = opts.diskFiles.get(v.name);
    if (m === undefined || isoPath === undefined) return;
    const names = opts.fs.list(m.dir);
    if (names === undefined) {
      throw new ConfigDiskError(`spec.volumes[${index}].${m.kind}`, `not mounted: no directory ${m.dir}`);
    }
    const files = names
      .filter((n) => !isAtomicWriterEntry(n))
      .map((n) => ({ path: n, sourceFile: path.join(m.dir, n) }));
    out.push({ volume: v.name, isoPath, label: m.label, files });
  });
  return out;
}
