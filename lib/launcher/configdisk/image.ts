/**
 * The ISO images a domain reads its configuration from (kubevirt pkg/cloud-init and pkg/config): what each
 * holds, where it goes and its volume id, as the pure planners produce them and iso.ts writes them.
 * The planners learn what the Pod mounted only through SourceFs, so tests give them a fake.
 */
import { KvError } from '../../kernel/errors/errors.ts';

/** A file in the image: bytes the launcher makes up, or a file (or directory) the Pod mounted. */
export type IsoFile =
  | { readonly path: string; readonly content: Buffer }
  | { readonly path: string; readonly sourceFile: string };

export interface IsoImage {
  /** The VMI volume the image backs. */
  readonly volume: string;
  /** Where the domain's disk reads it. */
  readonly isoPath: string;
  /** ISO 9660 volume id: cidata, config-2, cfgdata or the volume's volumeLabel. */
  readonly label: string;
  /** Paths inside the image, relative, `/`-separated. */
  readonly files: readonly IsoFile[];
}

/** What the planners may ask about the files the Pod mounted. */
export interface SourceFs {
  /** Entry names of a directory, sorted; undefined when it is missing or not a directory. */
  list(dir: string): readonly string[] | undefined;
  /** Whether `path` is a regular file (symlinks followed). */
  isFile(path: string): boolean;
  /** A file's bytes; undefined when it cannot be read. */
  read(path: string): Buffer | undefined;
}

/** A VMI field that keeps the images from being made: `<field>: <detail>`, code KV_ERR_INVALID. */
export class ConfigDiskError extends KvError {
  readonly field: string;
  constructor(field: string, detail: string) {
    super('KV_ERR_INVALID', `${field}: ${detail}`);
    this.field = field;
  }
}

/** Kubelet's atomic-writer entries (`..data`, `..2025_01_01_...`) in a configMap or secret mount. */
export function isAtomicWriterEntry(name: string): boolean {
  return name.startsWith('..');
}
