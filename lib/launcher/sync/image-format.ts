/**
 * The format of a containerDisk's image, or of the image on a filesystem claim (claim-formats.ts), and
 * whether it may be used (kubevirt pkg/os/disk GetDiskInfoWithValidation and VerifyImage, which the launcher
 * runs before the domain is made). The image is the tenant's: its first bytes name the format (qcow2 by its
 * magic, a few others QEMU knows are refused, the rest is raw), a qcow2 image may name neither a backing file
 * nor an external data file (either would hand the guest another file of the launcher), and `qemu-img info`
 * then checks it with that format named (never probing) under KubeVirt's limits of 10 s of CPU and 2000 MiB
 * of address space, as the daemons' user.
 */
import { execFile } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { ImageFormat } from '../converter/index.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';

const run = promisify(execFile);
export const QEMU_IMG = '/usr/bin/qemu-img';
export const PRLIMIT = '/usr/bin/prlimit';
/** KubeVirt's `ulimit -t 10` around qemu-img info. */
const QEMU_IMG_CPU_SECONDS = 10;
/** KubeVirt's `ulimit -v` around qemu-img info: virt-config DefaultDiskVerificationMemoryLimitBytes. */
export const QEMU_IMG_ADDRESS_SPACE_BYTES = 2000 * 1024 * 1024;
/** Bytes of an image's start that formatOfHeader looks at. */
const HEADER_BYTES = 512;

type Verdict = ImageFormat | { readonly problem: string };

const unsupported = (format: string): Verdict => ({
  problem: `image format ${JSON.stringify(format)} is not supported (raw or qcow2)`,
});
const BACKING_FILE = { problem: 'the image names a backing file, which is not allowed' };
const DATA_FILE = { problem: 'the image names an external data file, which is not allowed' };

/** Formats QEMU would recognise by their first bytes (block/*.c probe functions), other than qcow2. */
const OTHER_MAGIC: readonly (readonly [string, string])[] = [
  ['KDMV', 'vmdk'],
  ['COWD', 'vmdk'],
  ['# Disk DescriptorFile', 'vmdk'],
  ['conectix', 'vpc'],
  ['vhdxfile', 'vhdx'],
  ['QED\0', 'qed'],
  ['LUKS\xba\xbe', 'luks'],
  ['WithoutFreeSpace', 'parallels'],
  ['WithouFreSpacExt', 'parallels'],
  ['Bochs Virtual HD Image', 'bochs'],
];
const QCOW_MAGIC = 'QFI\xfb';
const VDI_SIGNATURE = 0xbeda107f;
/** qcow2 v3 incompatible feature bit 2: the guest data lives in an external file. */
const QCOW2_EXTERNAL_DATA_FILE = 4n;

function startsWith(head: Buffer, magic: string): boolean {
  return head.length >= magic.length && head.subarray(0, magic.length).equals(Buffer.from(magic, 'latin1'));
}

function qcowVerdict(head: Buffer): Verdict {
  if (head.length < 72) return { problem: 'the qcow2 header is cut short' };
  const version = head.readUInt32BE(4);
  if (version === 1) return unsupported('qcow');
  if (version !== 2 && version !== 3) return { problem: `qcow2 version ${version} is not supported` };
  if (head.readBigUInt64BE(8) !== 0n) return BACKING_FILE;
  if (version === 3) {
    if (head.length < 80) return { problem: 'the qcow2 header is cut short' };
    if ((head.readBigUInt64BE(72) & QCOW2_EXTERNAL_DATA_FILE) !== 0n) return DATA_FILE;
  }
  return 'qcow2';
}

/** The format the first bytes of an image name, or why it cannot be used. Pure. */
export function formatOfHeader(head: Buffer): Verdict {
  if (startsWith(head, QCOW_MAGIC)) return qcowVerdict(head);
  const other = OTHER_MAGIC.find(([magic]) => startsWith(head, magic));
  if (other !== undefined) return unsupported(other[1]);
  if (head.length >= 0x44 && head.readUInt32LE(0x40) === VDI_SIGNATURE) return unsupported('vdi');
  return 'raw';
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

/** What `qemu-img info --output=json -f <expected>` says about the image, or why it cannot be used. Pure. */
export function formatOfInfo(json: string, expected: ImageFormat): Verdict {
  let info: Record<string, unknown>;
  try {
    info = record(JSON.parse(json));
  } catch {
    return { problem: 'qemu-img info gave no JSON' };
  }
  const format = info['format'];
  if (format !== expected)
    return { problem: `qemu-img info reads the image as ${JSON.stringify(format ?? null)}, not ${expected}` };
  if (typeof info['backing-filename'] === 'string') return BACKING_FILE;
  const specific = record(record(info['format-specific'])['data']);
  if (typeof specific['data-file'] === 'string') return DATA_FILE;
  return expected;
}

/** The prlimit command line that runs qemu-img info on `file` as `format` within KubeVirt's limits. Pure. */
export function qemuImgInfoArgs(file: string, format: ImageFormat): string[] {
  return [
    ...[`--cpu=${QEMU_IMG_CPU_SECONDS}`, `--as=${QEMU_IMG_ADDRESS_SPACE_BYTES}`, '--'],
    ...[QEMU_IMG, 'info', '--output=json', '-U', '-f', format, file],
  ];
}

async function readHeader(file: string): Promise<Buffer> {
  const fh = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    const buf = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEADER_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

interface ProbeOptions {
  readonly identity: Identity;
  /** Run qemu-img info too (the header alone is always read). */
  readonly probe: boolean;
}

/**
 * The format of the image `file` (never a symlink), checked as the file header says; undefined when there is
 * no such file. `field` names the image in the errors.
 */
export async function imageFormat(
  file: string,
  field: string,
  o: ProbeOptions,
): Promise<ImageFormat | undefined> {
  let header: Buffer;
  try {
    header = await readHeader(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KvError('KV_ERR_CONFIG', `${field}: cannot read ${file}`, { cause: err });
  }
  return checkedFormat({ file, field, header }, o);
}

async function checkedFormat(
  image: { file: string; field: string; header: Buffer },
  o: ProbeOptions,
): Promise<ImageFormat> {
  const { file, field } = image;
  const named = formatOfHeader(image.header);
  if (typeof named !== 'string') throw new KvError('KV_ERR_CONFIG', `${field}: ${named.problem}`);
  if (!o.probe) return named;
  const asUser = o.identity.name === 'self' ? {} : { uid: o.identity.uid, gid: o.identity.gid };
  let stdout: string;
  try {
    ({ stdout } = await run(PRLIMIT, qemuImgInfoArgs(file, named), { timeout: 30_000, ...asUser }));
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `${field}: cannot read ${file} with qemu-img info`, { cause: err });
  }
  const f = formatOfInfo(stdout, named);
  if (typeof f !== 'string') throw new KvError('KV_ERR_CONFIG', `${field}: ${f.problem}`);
  return f;
}

/**
 * Volume name → format of every containerDisk image. Every image's header is checked; `known` (the
 * handler's DisksInfo) spares qemu-img info, as KubeVirt's cache of it does.
 */
export async function containerDiskFormats(
  vmi: VirtualMachineInstance,
  images: ReadonlyMap<string, string>,
  o: { known: ReadonlyMap<string, ImageFormat>; identity: Identity },
): Promise<Map<string, ImageFormat>> {
  const out = new Map(o.known);
  for (const [index, v] of (vmi.spec.volumes ?? []).entries()) {
    const file = images.get(v.name);
    if (file === undefined) continue;
    const field = `spec.volumes[${index}].containerDisk`;
    const format = await imageFormat(file, field, { identity: o.identity, probe: !o.known.has(v.name) });
    if (format === undefined) throw new KvError('KV_ERR_CONFIG', `${field}: ${file} does not exist`);
    if (!out.has(v.name)) out.set(v.name, format);
  }
  return out;
}
