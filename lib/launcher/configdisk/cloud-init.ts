/**
 * The cloud-init ISO of a VMI (kubevirt pkg/cloud-init/cloud-init.go ReadCloudInitVolumeDataSource and
 * GenerateLocalData). Only the first cloudInitNoCloud or cloudInitConfigDrive volume counts, as in KubeVirt.
 * - NoCloud, volume id `cidata`: user-data, meta-data, network-config (when there is network data);
 * - ConfigDrive, volume id `config-2`: openstack/latest/{user_data,meta_data.json,network_data.json}.
 * User and network data come inline (at most 2048 bytes each, the API's limit), base64-encoded, or from a
 * secret the Pod mounts at `<private>/secret/<volume>/{userdata|userData,networkdata|networkData}`.
 * Meta-data: the instance id (the firmware UUID for NoCloud, `<name>.<namespace>` for ConfigDrive), the
 * hostname (spec.hostname, else the VMI name up to its first dot, at most 63 characters), the instance type
 * from the instancetype annotations, and the SSH keys of accessCredentials propagated by NoCloud or
 * ConfigDrive. Device metadata (interface tags) is not written. Pure.
 */
import path from 'node:path';
import type { CloudInitSource, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { PodLayout } from '../../rpc/index.ts';
import { ConfigDiskError, type IsoFile, type IsoImage, type SourceFs } from './image.ts';
import { sshPublicKeys } from './ssh-keys.ts';

/** cloudInitUserMaxLen and cloudInitNetworkMaxLen of KubeVirt's VMI admitter. */
const CLOUD_INIT_INLINE_MAX_BYTES = 2048;
const CLUSTER_INSTANCETYPE_ANNOTATION = 'kubevirt.io/cluster-instancetype-name';
const INSTANCETYPE_ANNOTATION = 'kubevirt.io/instancetype-name';

type Kind = 'cloudInitNoCloud' | 'cloudInitConfigDrive';

interface DataFields {
  readonly raw: 'userData' | 'networkData';
  readonly base64: 'userDataBase64' | 'networkDataBase64';
  readonly ref: 'secretRef' | 'networkDataSecretRef';
  /** File names in the secret's mount, in KubeVirt's order. */
  readonly files: readonly [string, string];
}

const USER: DataFields = {
  raw: 'userData',
  base64: 'userDataBase64',
  ref: 'secretRef',
  files: ['userdata', 'userData'],
};
const NETWORK: DataFields = {
  raw: 'networkData',
  base64: 'networkDataBase64',
  ref: 'networkDataSecretRef',
  files: ['networkdata', 'networkData'],
};

export interface CloudInitOptions {
  readonly vmi: VirtualMachineInstance;
  /** `<root>/var/run/kubevirt-private`. */
  /** Where the launcher Pod mounts the config volumes (lib/rpc/pod-layout.ts). */
  readonly layout: Pick<PodLayout, 'configVolumeDir'>;
  /** Disk name → the image file the domain gives it. */
  readonly diskFiles: ReadonlyMap<string, string>;
  readonly fs: SourceFs;
}

/** Go's base64.StdEncoding: padded, no characters outside the alphabet (CR and LF are skipped). */
function decodeBase64(field: string, text: string): Buffer {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    throw new ConfigDiskError(field, 'is not valid base64');
  }
  return Buffer.from(s, 'base64');
}

function inline(field: string, data: Buffer): Buffer {
  if (data.length > CLOUD_INIT_INLINE_MAX_BYTES) {
    throw new ConfigDiskError(
      field,
      `is ${data.length} bytes, over the ${CLOUD_INIT_INLINE_MAX_BYTES}-byte limit (use a secret reference for larger data)`,
    );
  }
  return data;
}

type Data = { readonly content: Buffer } | { readonly sourceFile: string } | undefined;

/** Where a data source is read: the volume, its field path and the planner's options. */
interface Where {
  readonly base: string;
  readonly volume: string;
  readonly o: CloudInitOptions;
}

function fromSecret(where: Where, dataFields: DataFields): Data {
  const dir = where.o.layout.configVolumeDir('secret', where.volume);
  for (const name of dataFields.files) {
    const p = path.join(dir, name);
    if (where.o.fs.isFile(p)) return { sourceFile: p };
  }
  const [a, b] = dataFields.files;
  throw new ConfigDiskError(
    `${where.base}.${dataFields.ref}`,
    `the secret is not mounted: no file ${a} or ${b} in ${dir}`,
  );
}

function data(where: Where, src: CloudInitSource, dataFields: DataFields): Data {
  const raw = src[dataFields.raw] ?? '';
  const b64 = src[dataFields.base64] ?? '';
  const ref = src[dataFields.ref];
  const given = [raw !== '', b64 !== '', ref !== undefined].filter(Boolean).length;
  if (given > 1) {
    throw new ConfigDiskError(
      where.base,
      `only one of ${dataFields.raw}, ${dataFields.base64} and ${dataFields.ref} may be set`,
    );
  }
  if (ref !== undefined) return fromSecret(where, dataFields);
  if (raw !== '') return { content: inline(`${where.base}.${dataFields.raw}`, Buffer.from(raw, 'utf8')) };
  if (b64 === '') return undefined;
  const field = `${where.base}.${dataFields.base64}`;
  return { content: inline(field, decodeBase64(field, b64)) };
}

/** KubeVirt's dns.SanitizeHostname. */
export function guestHostname(vmi: VirtualMachineInstance): string {
  const given = vmi.spec.hostname ?? '';
  if (given !== '') return given;
  return (vmi.metadata.name ?? '').split('.')[0]?.slice(0, 63) ?? '';
}

function instanceType(vmi: VirtualMachineInstance): string {
  const a = vmi.metadata.annotations ?? {};
  return a[CLUSTER_INSTANCETYPE_ANNOTATION] ?? a[INSTANCETYPE_ANNOTATION] ?? '';
}

interface MetaFacts {
  readonly type: string;
  readonly host: string;
  readonly uuid: string;
  readonly keys?: Record<string, string>;
}

function noCloudMeta(m: MetaFacts): object {
  return {
    ...(m.type !== '' && { 'instance-type': m.type }),
    'instance-id': m.uuid,
    ...(m.host !== '' && { 'local-hostname': m.host }),
    ...(m.keys !== undefined && { 'public-keys': m.keys }),
  };
}

function configDriveMeta(metaFacts: MetaFacts, vmi: VirtualMachineInstance): object {
  const { name = '', namespace = '' } = vmi.metadata;
  return {
    ...(metaFacts.type !== '' && { instance_type: metaFacts.type }),
    instance_id: `${name}.${namespace}`,
    ...(metaFacts.host !== '' && { hostname: metaFacts.host }),
    ...(metaFacts.uuid !== '' && { uuid: metaFacts.uuid }),
    ...(metaFacts.keys !== undefined && { public_keys: metaFacts.keys }),
  };
}

function metaData(vmi: VirtualMachineInstance, kind: Kind, keys: Record<string, string>): object {
  const m: MetaFacts = {
    type: instanceType(vmi),
    host: guestHostname(vmi),
    uuid: vmi.spec.domain.firmware?.uuid ?? vmi.metadata.uid ?? '',
    ...(Object.keys(keys).length > 0 && { keys }),
  };
  return kind === 'cloudInitNoCloud' ? noCloudMeta(m) : configDriveMeta(m, vmi);
}

const LAYOUT: Readonly<Record<Kind, { label: string; user: string; meta: string; network: string }>> = {
  cloudInitNoCloud: { label: 'cidata', user: 'user-data', meta: 'meta-data', network: 'network-config' },
  cloudInitConfigDrive: {
    label: 'config-2',
    user: 'openstack/latest/user_data',
    meta: 'openstack/latest/meta_data.json',
    network: 'openstack/latest/network_data.json',
  },
};

function file(p: string, d: NonNullable<Data>): IsoFile {
  return 'content' in d ? { path: p, content: d.content } : { path: p, sourceFile: d.sourceFile };
}

/** The cloud-init image of the VMI, or undefined when it has no cloud-init volume with a disk. */
export function cloudInitImage(opts: CloudInitOptions): IsoImage | undefined {
  const volumes = opts.vmi.spec.volumes ?? [];
  const index = volumes.findIndex(
    (v) => v.cloudInitNoCloud !== undefined || v.cloudInitConfigDrive !== undefined,
  );
  const volume = volumes[index];
  if (volume === undefined) return undefined;
  const isoPath = opts.diskFiles.get(volume.name);
  if (isoPath === undefined) return undefined;
  const kind: Kind = volume.cloudInitNoCloud !== undefined ? 'cloudInitNoCloud' : 'cloudInitConfigDrive';
  const src = volume[kind] ?? {};
  const where: Where = { base: `spec.volumes[${index}].${kind}`, volume: volume.name, o: opts };
  const user = data(where, src, USER);
  const network = data(where, src, NETWORK);
  if (user === undefined && network === undefined) {
    throw new ConfigDiskError(where.base, 'needs user data or network data');
  }
  const method = kind === 'cloudInitNoCloud' ? 'noCloud' : 'configDrive';
  const keys = sshPublicKeys({ vmi: opts.vmi, layout: opts.layout, fs: opts.fs, method });
  const layout = LAYOUT[kind];
  const meta = Buffer.from(JSON.stringify(metaData(opts.vmi, kind, keys)), 'utf8');
  const files: IsoFile[] = [
    file(layout.user, user ?? { content: Buffer.alloc(0) }),
    { path: layout.meta, content: meta },
    ...(network === undefined ? [] : [file(layout.network, network)]),
  ];
  return { volume: volume.name, isoPath, label: layout.label, files };
}
