/**
 * `virt launcher convert --vmi FILE [--emulation] [--arch amd64]`: the domain XML the launcher would define
 * for a VMI, as a debugging aid. The file holds one VirtualMachineInstance in JSON or YAML. It is checked against
 * the VMI schema first (a bad field is refused with its path, as the API server would have refused it), then
 * KubeVirt's defaults are applied, as the API's mutating webhook would have, and paths are the in-Pod ones
 * (root "/").
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import {
  asVirtualMachineInstance,
  clusterDefaultsFrom,
  withVmiDefaults,
  type VirtualMachineInstance,
} from '../kubevirt/index.ts';
import { errorMessage, KvError } from '../kernel/errors/errors.ts';
import { converterContext, isArch, toDomainXml, type Arch } from './converter/index.ts';

export interface ConvertOptions {
  /** Path of a JSON or YAML file with one VirtualMachineInstance. */
  readonly vmi: string;
  /** Render for TCG (domain type qemu, a custom CPU model). */
  readonly emulation: boolean;
  readonly arch: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The VMI in a JSON or YAML document, checked against the VMI schema (nulls pruned, as the API server does). */
export function parseVmiDocument(text: string, source: string): VirtualMachineInstance {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `${source}: not JSON or YAML: ${errorMessage(err)}`, { cause: err });
  }
  if (!isObject(doc)) throw new KvError('KV_ERR_DECODE', `${source}: expected an object`);
  if (doc['kind'] !== undefined && doc['kind'] !== 'VirtualMachineInstance') {
    throw new KvError(
      'KV_ERR_DECODE',
      `${source}: expected a VirtualMachineInstance, got ${JSON.stringify(doc['kind'])}`,
    );
  }
  return asVirtualMachineInstance(doc, source);
}

/** The VMI with KubeVirt's defaults for a cluster of this architecture (pure). */
function defaultedVmi(vmi: VirtualMachineInstance, arch: Arch): VirtualMachineInstance {
  return withVmiDefaults(vmi, clusterDefaultsFrom(undefined, arch));
}

export interface ConvertTextOptions {
  /** Names the document in a message about the document itself (a file name). */
  readonly source: string;
  readonly emulation: boolean;
  readonly arch: Arch;
}

/** The domain XML of the VMI in a JSON or YAML document (pure): checked, defaulted, converted. */
export function convertVmiText(text: string, opts: ConvertTextOptions): string {
  const vmi = parseVmiDocument(text, opts.source);
  return toDomainXml(
    defaultedVmi(vmi, opts.arch),
    converterContext({ root: '/', arch: opts.arch, emulation: opts.emulation }),
  );
}

export async function runConvert(opts: ConvertOptions): Promise<string> {
  const { arch } = opts;
  if (!isArch(arch)) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `--arch must be one of amd64, arm64, s390x, got ${JSON.stringify(arch)}`,
    );
  }
  const text = await readFile(opts.vmi, 'utf8').catch((err: unknown) => {
    const missing = (err as { code?: unknown }).code === 'ENOENT';
    throw new KvError('KV_ERR_CONFIG', missing ? `no such file: ${opts.vmi}` : errorMessage(err), {
      cause: err,
    });
  });
  return convertVmiText(text, { source: opts.vmi, emulation: opts.emulation, arch });
}
