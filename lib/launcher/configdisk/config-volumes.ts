/**
 * ISO images of configMap, secret, downwardAPI, serviceAccount and sysprep volumes used as disks (kubevirt
 * pkg/config createIsoDisksForConfigVolumes and sysprep.go): each holds the files of the directory the Pod mounts
 * for the volume (lib/controller/vmi/pod-volumes.ts) — `<private>/{config-map,secret,downwardapi,sysprep}/<volume>`,
 * and the service account token at `<root>/var/run/secrets/kubernetes.io/serviceaccount` — with the volume's
 * volumeLabel as volume id (default `cfgdata`; a sysprep image is `unattendCD` and must hold autounattend.xml
 * or unattend.xml, in any case, as Windows Setup looks for them). Only volumes a disk uses get an image. Kubelet's own `..data` and
 * timestamped entries are left out (KubeVirt copies them too; a guest has no use for them). Pure.
 */
import path from 'node:path';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import type { ConfigVolumeKind, PodLayout } from '../../rpc/index.ts';
import { ConfigDiskError, isAtomicWriterEntry, type IsoImage, type SourceFs } from './image.ts';

const DEFAULT_CONFIG_LABEL = 'cfgdata';
const SYSPREP_LABEL = 'unattendCD';
const UNATTEND_FILES = ['autounattend.xml', 'unattend.xml'];
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
  readonly kind: 'configMap' | 'secret' | 'downwardAPI' | 'serviceAccount' | 'sysprep';
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
  if (volume.sysprep !== undefined) return { kind: 'sysprep', dir: under('sysprep'), label: SYSPREP_LABEL };
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
    if (m.kind === 'sysprep' && v.sysprep?.secret === undefined && v.sysprep?.configMap === undefined)
      throw new ConfigDiskError(`spec.volumes[${index}].sysprep`, 'names neither a Secret nor a ConfigMap');
    const names = opts.fs.list(m.dir);
    if (names === undefined) {
      throw new ConfigDiskError(`spec.volumes[${index}].${m.kind}`, `not mounted: no directory ${m.dir}`);
    }
    const kept = names.filter((n) => !isAtomicWriterEntry(n));
    if (m.kind === 'sysprep' && !kept.some((n) => UNATTEND_FILES.includes(n.toLowerCase()))) {
      throw new ConfigDiskError(
        `spec.volumes[${index}].sysprep`,
        `holds neither ${UNATTEND_FILES.join(' nor ')}: its Secret or ConfigMap needs one of these keys`,
      );
    }
    const files = kept.map((n) => ({ path: n, sourceFile: path.join(m.dir, n) }));
    out.push({ volume: v.name, isoPath, label: m.label, files });
  });
  return out;
}
